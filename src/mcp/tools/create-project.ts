import * as z from 'zod';
import * as S from '../../client/schemas.js';
import { GOALS, OPERANDS } from '../../client/enums.js';
import { Reply, said, willSend } from '../ask.js';
import { canonical } from '../confirm.js';
import { Confirmation, output } from '../shapes.js';
import { UUID_RE as UUID } from '../../client/ids.js';
import { defineTool, holds, WRITE } from './tool.js';
import { createProject as createOnce } from '../../ops/writes.js';

type Args = {
  name: string;
  brief?: string | undefined;
  watchlist_items?:
    | Array<{ entity_id: string; entity_type: string; entity_name?: string | undefined; data?: Record<string, unknown> | undefined }>
    | undefined;
  operand?: (typeof OPERANDS)[number] | undefined;
  goals?: Array<(typeof GOALS)[number]> | undefined;
};

export const createProject = defineTool({
  name: 'create_project',
  title: 'Create a project',
  description:
    'Creates a project (the user becomes owner) and returns its id and the setup_url where scoring setup is finished. A person ' +
    'confirms before anything is sent, shown exactly what will be sent: rsi asks the user itself through elicitation (a form, or its own page for URL mode); a client without it gets a tool error with the rsi command the ' +
    'user can run, unless the server was started with --confirm-in-chat (then the first call returns the question and an ' +
    'identical repeat with confirmed: true, after the user agreed in the chat, creates it).',
  inputSchema: {
    name: z.string().min(1).max(200),
    brief: z.string().optional(),
    watchlist_items: z
      .array(
        z.strictObject({
          entity_id: z.string().min(1),
          entity_type: z.string().min(1),
          entity_name: z.string().optional(),
          data: z.record(z.string(), z.unknown()).optional(),
        }),
      )
      .optional(),
    operand: z.enum(OPERANDS).optional(),
    goals: z.array(z.enum(GOALS)).optional(),
    confirmed: z
      .boolean()
      .optional()
      .describe('only with a server started with --confirm-in-chat: true when repeating, unchanged, a call the user agreed to'),
  },
  // The created project; or, when nothing was created yet (asked, declined), the request asked about.
  outputSchema: output({
    shape: {
      id: z.string().optional().describe('present once created'),
      name: z.string(),
      role: z.string().optional(),
      setup_url: z.string().optional(),
      scan_error: z.string().optional(),
      rsi_confirmation: Confirmation.optional(),
    },
  }),
  annotations: WRITE,
  narrowWith: [],
  writes: true,
  listedWhen: (now) => holds(now.api, 'projects:write'),
  run: async (a, x, kit) => {
    const { confirmed, ...body } = a;
    // Before anything is sent: can a person confirm here at all?
    kit.personCanConfirm('create_project', createCommand(body));
    const c = await kit.api();
    // The service does not ask before creating: rsi asks about the request, which reads nothing.
    const reply = await kit.gate<Args, never, S.CreatedProject>('create_project', body, confirmed, x, {
      write: {
        plan: async () => ({ asks: true, question: body }),
        // Sent once; a lost reply is read back (src/ops/writes.ts), as `rsi projects create` does.
        send: async (_plan, signal) => ({ asks: false, result: (await createOnce(c, body, { signal })).project }),
        confirmed: async () => {
          throw new Error('create_project: the service asks nothing');
        },
        planKey: canonical,
        questionKey: () => '',
      },
      view: {
        request: createQuestion,
        question: () => '',
        asked: (step) => ({ ...step.plan }) as Record<string, unknown>,
        done: (r) => ({ value: r }),
      },
      command: createCommand(body),
    });
    const created = S.CreatedProject().safeParse(reply.value);
    if (!created.success) return reply;
    return new Reply(reply.value, reply.note, reply.question, [
      ...kit.page(created.data.setup_url, c.baseUrl, { name: 'setup', title: 'Finish scoring setup (web application)' }),
      ...(UUID.test(created.data.id) ? kit.projectPage(c.baseUrl, created.data.id) : []),
    ]);
  },
});

function createQuestion(a: Args): string {
  const items = (a.watchlist_items ?? []).map((i) => `${said(i.entity_name ?? i.entity_id, 80)} (${said(i.entity_type, 20)})`);
  return (
    `Create the project "${said(a.name, 120)}"` +
    (items.length
      ? ` with ${items.length} scope item${items.length === 1 ? '' : 's'}: ${items.slice(0, 15).join(', ')}${items.length > 15 ? ` and ${items.length - 15} more` : ''}`
      : '') +
    (a.goals?.length ? `, goals ${a.goals.join(', ')}` : '') +
    `? ${willSend('POST /projects with', a)}.`
  );
}

/** The same request as `rsi projects create`, for a person to run (words; gate.ts quotes them). */
function createCommand(a: Args): string[] {
  const words = ['rsi', 'projects', 'create', '--name', a.name];
  if (a.brief !== undefined) words.push('--brief', a.brief);
  // Scope items do not fit on a command line: the person puts them in a file.
  if (a.watchlist_items?.length) words.push('--watchlist-file', 'items.json');
  if (a.operand) words.push('--operand', a.operand.replace('$', ''));
  for (const g of a.goals ?? []) words.push('--goal', g);
  return words;
}
