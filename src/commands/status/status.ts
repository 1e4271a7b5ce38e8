import type { ProjectStatus } from '../../client/schemas.js';
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { DEFAULT_TIMEOUT_MS, INTERVAL_S, timing, watchWithOutput } from '../shared/watch.js';
import type { WatchTiming } from '../../ops/watch.js';
import { analysesPicture, printStatus, elapsedSince } from '../shared/status-view.js';
import { failedSince } from '../../ops/status-reading.js';
import { assertNoFailedAnalyses } from '../shared/exit-policy.js';
import { note } from '../../io/lines.js';
import { printDocumentOr, printsDocuments } from '../../io/replies.js';
import { on, type OptionSpecs, parseOptions, seconds, withOptions } from '../shared/options.js';
import { type CommandDeclaration, commandFor, withProjectArgument } from '../declaration.js';
import { STATUS_FIELDS } from './fields.js';

export interface StatusOptions {
  project: string;
  /** Undefined: print the status once. */
  watch: WatchTiming | undefined;
}

type Status = ProjectStatus;

export const command: CommandDeclaration = {
  path: 'status',
  description: "show a project's discovery and scoring status; --watch follows it until you can act",
  examples: ['rsi status "My first project"', 'rsi status "My first project" --watch --timeout 10m', 'rsi status P --json | jq -r .next'],
  fields: { list: STATUS_FIELDS },
  sample: { line: ['{project}'] },
};

/** The options, as data: flags, help and parsers (src/commands/shared/options.ts). */
const OPTIONS = {
  watch: { flags: '--watch', description: 'poll while the service says wait: until scoring is done or you must act', parse: on() },
  web: {
    flags: '--web',
    description: "open the project's page in the browser instead",
    parse: on(),
    rules: [{ conflicts: 'watch' }],
  },
  interval: {
    flags: '--interval <seconds>',
    description: 'seconds between polls with --watch (default 2, min 0.1)',
    parse: seconds(INTERVAL_S.min, INTERVAL_S.max),
    rules: [{ needs: 'watch' }],
  },
  // gh's `run watch --exit-status`: --watch already exits 10 when an analysis fails while it
  // watches, so the habit works as typed; not listed, one flag fewer to read.
  exitStatus: {
    flags: '--exit-status',
    description: 'with --watch: exit 10 when an analysis fails (always so)',
    parse: on(),
    hidden: true,
  },
} satisfies OptionSpecs;

export function build(ctx: Context, runF: typeof run = run): Command {
  const cmd = withProjectArgument(commandFor(command));
  return withOptions(cmd, OPTIONS)
    .addHelpText(
      'after',
      `
--timeout (a global option) bounds the whole command; with --watch its default is 1h.
Exit codes: 0 done or your turn to act; 9 --timeout reached; 10 scoring done but an
analysis failed while --watch watched (failures from before the watch, and any failure in a plain
status, are reported and exit 0).
With --json, --watch prints one ProjectStatus JSON document per line, the last line the final state.`,
    )
    .action(async (typed: string | undefined, flags: Record<string, unknown>) => {
      const project = await (await import('../shared/pick.js')).projectOrPick(ctx, typed);
      const { web, watch, interval } = parseOptions(OPTIONS, flags);
      if (web) return (await import('../shared/web.js')).openProjectPage(ctx, project);
      if (project.trim() === '') throw new UsageError('<project> must not be empty');
      // A watch is bounded by --timeout, or by an hour from the command's start.
      await runF({ project, watch: watch ? timing(interval, ctx.deadline.limit(DEFAULT_TIMEOUT_MS)) : undefined }, ctx);
    });
}

export async function run(options: StatusOptions, ctx: Context): Promise<void> {
  const [client, { resolveProject }] = await Promise.all([ctx.client(), import('../../ops/resolve.js')]);
  const { io } = ctx;
  const out = ctx.output();
  const machine = printsDocuments(out);
  ctx.deadline.step(`the project ${options.project} to be looked up`);
  const project = await resolveProject(client, options.project, ctx.signal);
  let first: Status | undefined;
  const poll = async (signal: AbortSignal) => {
    const status = await client.getProjectStatus(project.id, signal);
    first ??= status;
    return status;
  };

  if (options.watch === undefined) {
    ctx.deadline.step(`the status of ${project.name}`);
    const status = await poll(ctx.signal);
    await printDocumentOr(out, status, () => printStatus(out, status, project.name));
    return;
  }

  const progress = await ctx.progress({ suffix: elapsedSince(ctx.clock) });
  const final = await watchWithOutput(
    poll,
    // The bound counts from the command's start, the project's lookup included.
    { ...options.watch, startedAt: ctx.deadline.startedAt },
    { out, clock: ctx.clock, signal: ctx.signal, progress },
    { ndjson: machine, projectName: project.name, picture: await analysesPicture(ctx), setupUrl: client.setupUrl(project.id) },
  );
  if (!machine) await printStatus(out, final, project.name);
  // Exit 10 only for analyses that failed while this watch ran; older failures are history.

  assertNoFailedAnalyses(final, project.name, failedSince(first ?? final), (line) => note(io, `note: ${line}`));
}
