/**
 * `rsi projects create --from-brief <file|->`: the MCP-only "project from a brief with scope
 * matching". The brief goes to the service's MCP tool first as a dry run; the matched scope is
 * shown; only after a yes (TTY prompt or --yes, exit 7 without either, as `analyses run` does) is
 * the same call sent again with `confirm: true`, which creates the project.
 */
import { suggest } from '../../../io/text.js';
import { openSetupPage } from '../../shared/open-setup.js';
import type { Context } from '../../../context.js';
import { canPrompt } from '../../../io/io.js';
import { ConfirmationRequiredError, DeclinedError, UsageError } from '../../../errors.js';
import { printJson } from '../../../io/output.js';
import { formatTable } from '../../../io/table.js';
import { noteUnlessDocuments, printMade, printsDocuments, tableNote } from '../../../io/replies.js';
import { readInput } from '../../shared/flags.js';

export interface FromBriefOptions {
  /** A path, or "-" for stdin. */
  from: string;
  name: string | undefined;
  yes: boolean;
  openSetup: boolean;
}

/**
 * The options of `--from-brief <from>` (projects create's typed flags, whose rules have already
 * refused the flags that set the brief and the scope: they come from the file).
 */
export function fromBriefOptions(from: string, flags: Omit<FromBriefOptions, 'from'>): FromBriefOptions {
  return { from, name: flags.name, yes: flags.yes, openSetup: flags.openSetup };
}

export async function runFromBrief(opts: FromBriefOptions, ctx: Context): Promise<void> {
  const [{ withMcp }, { createFromBrief }, { confirmedByReadingBack, READ_BACK_NOTE }, { shielded }] = await Promise.all([
    import('../../mcp/connect.js'),
    import('../../../ops/from-brief.js'),
    import('../../../ops/writes.js'),
    import('../../../io/shield.js'),
  ]);
  const source = opts.from === '-' ? 'stdin' : opts.from;
  const brief = await readInput('--from-brief', opts.from, ctx, 1024 * 1024);
  if (!brief.trim()) throw new UsageError(`--from-brief: ${source} is empty`);
  const { io } = ctx;
  const out = ctx.output();
  const machine = printsDocuments(out);
  // stdin that carried the brief cannot also carry the answer to a question.
  const stdinFree = opts.from !== '-';

  const created = await withMcp(ctx, async (mcp) => {
    const input = { brief, name: opts.name };
    const outcome = await createFromBrief(mcp, input, {
      signal: ctx.signal,
      // A lost reply to the confirmed call is read back from the project list (src/ops/writes.ts).
      readBack: {
        projects: () => ctx.client(),
        signal: ctx.signal,
        step: (what) => ctx.deadline.step(what),
        shield: (fn) => shielded(fn, 'reading the service back to see whether the project was created'),
      },
      // The matched scope on stderr, then a yes from the person (or --yes) before anything is created.
      confirm: async (dry) => {
        const name = dry.reply.name ?? opts.name ?? '(unnamed)';
        io.stderr.write(
          `The brief matches ${dry.reply.matched.length} scope ${dry.reply.matched.length === 1 ? 'item' : 'items'} for the project "${name}":\n\n`,
        );
        io.stderr.write(
          formatTable(
            io,
            [{ header: 'NAME' }, { header: 'TYPE' }, { header: 'FOUND AS', flexible: true }, { header: 'ENTITY ID', id: true }],
            dry.reply.matched.map((m) => [m.entity_name ?? '', m.entity_type, m.matched_text ?? '', m.entity_id]),
          ),
        );
        io.stderr.write('\n');
        if (opts.yes) return true;
        if (!stdinFree || !canPrompt(io)) {
          if (machine) await printJson(out, dry.raw);
          throw new ConfirmationRequiredError(`creating the project "${name}" needs a confirmation; nothing was created`, {
            hint: stdinFree
              ? 'run again with --yes to create it (no terminal to ask on)'
              : 'run again with --yes (stdin carried the brief, so nobody can answer)',
          });
        }
        const prompter = await ctx.prompter();
        return prompter.confirm(`Create the project "${name}" with this scope?`, { default: false });
      },
    });
    if (outcome.outcome === 'no_match') {
      if (machine) await printJson(out, outcome.dry.raw);
      throw new UsageError(`no scope item (target, disease, modality, …) was found in the brief; nothing was created`, {
        hint: 'name the targets, diseases or modalities the project is about, or create it with `rsi projects create --name … --watchlist-file …`',
      });
    }
    if (outcome.outcome === 'declined') {
      if (machine) await printJson(out, outcome.dry.raw);
      throw new DeclinedError('declined: nothing was created');
    }
    return { raw: outcome.raw, project: outcome.project, done: outcome.done };
  });
  if (!created) return;

  const { project } = created;
  if (confirmedByReadingBack(created.done)) io.stderr.write(`✓ Created project ${project.name} (${READ_BACK_NOTE})\n`);
  else noteUnlessDocuments(out, `✓ Created project ${project.name}`);
  // The same shape as `rsi projects create`.
  await printMade(out, {
    json: created.raw,
    ndjson: project,
    row: project as Record<string, unknown>,
    columns: ['id', 'name', 'role', 'setup_url', 'scan_error'].map((k) => ({ header: k, value: (r: Record<string, unknown>) => r[k] })),
    pairs: [
      ['id', project.id],
      ['setup_url', project.setup_url],
    ],
  });
  // Server text inside a message of rsi's: line breaks folded, so it stays one line.
  if (project.scan_error)
    io.stderr.write(`warning: the initial scan did not start: ${project.scan_error.replace(/\s*[\r\n]+\s*/g, ' ')}\n`);
  await tableNote(out, `Next: finish scoring setup at ${project.setup_url}, then ${suggest(['rsi', 'status', project.id, '--watch'])}`);
  if (opts.openSetup) await openSetupPage(ctx, project.setup_url);
}
