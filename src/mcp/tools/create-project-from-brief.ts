import * as z from 'zod';
import { BRIEF_TOOLS, BriefReply } from '../../ops/features.js';
import { briefWrite } from '../../ops/from-brief.js';
import { requireTool } from '../../ops/mcp-tools.js';
import { Reply, said, willSend } from '../ask.js';
import { canonical } from '../confirm.js';
import { Confirmation, output } from '../shapes.js';
import { defineTool, holds, WRITE } from './tool.js';

export const createProjectFromBrief = defineTool({
  name: 'create_project_from_brief',
  title: 'Create a project from a brief',
  description:
    "Matches a project brief against the service's catalogue (targets, diseases, modalities, assets named in it) and creates " +
    'the project with that scope once the user agrees: rsi asks the user itself through elicitation (a form, or its own page for a client with URL mode only). A client without it ' +
    'gets a tool error with the rsi command the user can run (the brief saved in brief.md), unless the server was started with ' +
    '--confirm-in-chat: then nothing is created, the reply lists the matched scope, and a repeat of exactly the same call with ' +
    'confirmed: true, after the user agreed in the chat, creates it.',
  inputSchema: {
    brief: z.string().min(1).describe('the project brief, free text'),
    name: z.string().min(1).optional().describe("the project name (the service's default: the brief's first line)"),
    confirmed: z
      .boolean()
      .optional()
      .describe(
        'only with a server started with --confirm-in-chat: true when repeating, unchanged, a call whose question the user agreed to; a first call is always asked',
      ),
  },
  outputSchema: output(BriefReply.extend({ rsi_confirmation: Confirmation.optional() })),
  annotations: WRITE,
  narrowWith: [],
  writes: true,
  remote: true,
  listedWhen: (now) => holds(now.mcp, 'projects:write'),
  run: async (a, x, kit) => {
    const input = { brief: a.brief, name: a.name };
    // Before anything is sent: can a person confirm here at all?
    kit.personCanConfirm('create_project_from_brief', briefCommand(a.name));
    const mcp = kit.mcp();
    // Found by name only, not by its declared arguments (ops' briefTool), and its answer passed on
    // as the service gave it: a service whose schema does not list them is still called, and judges.
    const tool = (await requireTool(mcp, BRIEF_TOOLS, 'project-from-brief', x.signal)).name;
    // The use case's pair (src/ops/from-brief.ts) under this front-end's way of asking (the gate).
    // A lost reply to the confirmed call is read back from the project list (src/ops/writes.ts).
    const pair = briefWrite(mcp, tool, input, { projects: () => kit.api(), signal: x.signal });
    const sent = { ...input, confirm: true };
    // The dry run (`confirm: false`) creates nothing: it is the plan, read again after the yes; the
    // use case's confirmed call (src/ops/from-brief.ts) is the write.
    const reply = await kit.gate('create_project_from_brief', { brief: a.brief, ...(a.name ? { name: a.name } : {}) }, a.confirmed, x, {
      write: {
        plan: (signal) => pair.first(signal),
        send: async (dry, signal) => ({ asks: false, result: await pair.confirmed(dry, signal) }),
        confirmed: async () => {
          throw new Error('create_project_from_brief: the service asks nothing more');
        },
        planKey: ({ reply: dry }) => canonical({ name: dry.name, matched: dry.matched.map((m) => [m.entity_id, m.entity_type]) }),
        questionKey: () => '',
      },
      view: {
        request: ({ reply: dry }) => {
          const items = dry.matched.map((m) => `${said(m.entity_name ?? m.entity_id, 80)} (${said(m.entity_type, 20)})`);
          return (
            `Create the project "${said(dry.name ?? a.name ?? '', 120)}" with ${items.length} scope item${items.length === 1 ? '' : 's'}: ` +
            `${items.slice(0, 15).join(', ')}${items.length > 15 ? ` and ${items.length - 15} more` : ''}? ` +
            `${willSend(`the service's ${tool} tool`, sent)}.`
          );
        },
        question: () => '',
        asked: (step) => step.plan.reply,
        done: ({ reply: r }) => ({
          value: r,
          // Nothing matched: nothing to create, nothing to ask.
          ...(!r.created && r.matched.length === 0
            ? { note: 'No scope item was found in the brief, so nothing can be created: name a target, disease or modality in it.' }
            : {}),
        }),
      },
      command: briefCommand(a.name),
    });
    const created = reply.value as BriefReply;
    if (!created.created || !created.project) return reply;
    const origin = kit.origin();
    return new Reply(reply.value, reply.note, reply.question, [
      ...kit.page(created.project.setup_url, origin, { name: 'setup', title: 'Finish scoring setup (web application)' }),
      ...kit.projectPage(origin, created.project.id),
    ]);
  },
});

/** `rsi projects create --from-brief` for a person to run, the brief saved in a file (words; gate.ts quotes them). */
function briefCommand(name: string | undefined): string[] {
  return ['rsi', 'projects', 'create', '--from-brief', 'brief.md', ...(name !== undefined ? ['--name', name] : [])];
}
