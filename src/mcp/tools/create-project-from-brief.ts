import * as z from 'zod';
import { BRIEF_TOOLS, BriefReply } from '../../ops/features.js';
import { sendBrief } from '../../ops/from-brief.js';
import { requireTool } from '../../ops/mcp-tools.js';
import { Reply, said } from '../ask.js';
import { canonical } from '../confirm.js';
import { Confirmation, output } from '../shapes.js';
import { defineTool, may, WRITE } from './tool.js';

export const createProjectFromBrief = defineTool({
  name: 'create_project_from_brief',
  title: 'Create a project from a brief',
  description:
    "Matches a project brief against the service's catalogue (targets, diseases, modalities, assets named in it) and creates " +
    'the project with that scope once the user agrees: rsi asks the user itself if your client supports elicitation; otherwise ' +
    'nothing is created, the reply lists the matched scope, and a repeat of exactly the same call with confirmed: true, after ' +
    'the user agreed, creates it.',
  inputSchema: {
    brief: z.string().min(1).describe('the project brief, free text'),
    name: z.string().min(1).optional().describe("the project name (the service's default: the brief's first line)"),
    confirmed: z
      .boolean()
      .optional()
      .describe('true only when repeating, unchanged, a call whose question the user agreed to; a first call is always asked'),
  },
  outputSchema: output(BriefReply.extend({ rsi_confirmation: Confirmation.optional() })),
  annotations: WRITE,
  narrowWith: [],
  writes: true,
  remote: true,
  listedWhen: (now) => now.mcp !== undefined && may(now.mcp.scopes, 'projects:write'),
  run: async (a, x, kit) => {
    // The use case's steps (src/ops/from-brief.ts) under this front-end's way of asking (the gate).
    const input = { brief: a.brief, name: a.name };
    const mcp = kit.mcp();
    // Found by name only, not by its declared arguments (ops' briefTool), and its answer passed on
    // as the service gave it: a service whose schema does not list them is still called, and judges.
    const tool = (await requireTool(mcp, BRIEF_TOOLS, 'project-from-brief', x.signal)).name;
    const reply = await kit.gate('create_project_from_brief', { brief: a.brief, ...(a.name ? { name: a.name } : {}) }, a.confirmed, x, {
      first: async () => {
        const dry = (await sendBrief(mcp, tool, input, false, x.signal)).reply;
        const items = dry.matched.map((m) => `${said(m.entity_name ?? m.entity_id, 80)} (${said(m.entity_type, 20)})`);
        return {
          // Nothing matched: nothing to create, nothing to ask.
          asks: !dry.created && dry.matched.length > 0,
          value: dry,
          fingerprint: canonical(dry.matched.map((m) => [m.entity_id, m.entity_type])),
          ...(dry.matched.length === 0
            ? { note: 'No scope item was found in the brief, so nothing can be created: name a target, disease or modality in it.' }
            : {}),
          question:
            `Create the project "${said(dry.name ?? a.name ?? '', 120)}" with ${items.length} scope item${items.length === 1 ? '' : 's'}: ` +
            `${items.slice(0, 15).join(', ')}${items.length > 15 ? ` and ${items.length - 15} more` : ''}?`,
        };
      },
      confirmed: async () => (await sendBrief(mcp, tool, input, true, x.signal)).reply,
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
