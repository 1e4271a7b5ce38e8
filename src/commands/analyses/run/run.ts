import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import type { ApiClient } from '../../../client/client.js';
import { forPeople, type OutputFormat } from '../../../formats.js';
import type { Output } from '../../../io/formats.js';
import { canPrompt } from '../../../io/io.js';
import type { AnalysesResult, RunAnalysesBody, Selection } from '../../../client/schemas.js';
import { ConfirmationRequiredError, DeclinedError, UsageError } from '../../../errors.js';
import { DEFAULT_TIMEOUT_MS, INTERVAL_S, timing, watchWithOutput } from '../../shared/watch.js';
import type { WatchTiming } from '../../../ops/watch.js';
import { analysesPicture, printStatus, elapsedSince } from '../../shared/status-view.js';
import { assertNoFailedAnalyses } from '../../shared/exit-policy.js';
import { startedByReply } from '../../../ops/status-reading.js';
import {
  given,
  list,
  number,
  on,
  oneOf,
  type OptionSpecs,
  type OptionsOf,
  parseOptions,
  seconds,
  withOptions,
} from '../../shared/options.js';
import { ANALYSIS_MODES, TOP_TYPES } from '../../../client/enums.js';
import { printDocument, printJsonLine, printSections } from '../../../io/output.js';
import { formatTable } from '../../../io/table.js';
import { note } from '../../../io/lines.js';
import { inTable, printsDocuments, tableGap, tableNote } from '../../../io/replies.js';
import { dedupe, parseSelect, parseSelectionsJson } from './selections.js';
import { suggest } from '../../../io/text.js';
import { readInput } from '../../shared/flags.js';
import * as ops from '../../../ops/analyses.js';
import { confirmedByReadingBack, READ_BACK_NOTE } from '../../../ops/writes.js';
import { type CommandDeclaration, columnsOf, commandFor, columnOnly, field, jsonOnly, withProjectArgument } from '../../declaration.js';
import { LIMITS, rangeText } from '../../../client/limits.js';

// The use case's parts, where the command's tests have always found them.

/** The request and reply shapes are the client's wire types (client/schemas.ts), nothing local. */
type TopRequest = NonNullable<RunAnalysesBody['top']>;
type AnalysesReply = AnalysesResult;

export interface AnalysesRunOptions {
  project: string;
  /** Where the selections come from, read when the command runs (stdin or a file). */
  selectionsFrom: string | undefined;
  /** From --select, in order. */
  select: Selection[];
  top: TopRequest | undefined;
  includeAnalysed: boolean;
  yes: boolean;
  /** Nothing was chosen at a terminal: offer the project's unanalysed signals in a checkbox. */
  pick?: boolean;
  /** Undefined: do not wait. */
  wait: WatchTiming | undefined;
}

/** Signals chosen one way: by name or id (--select, --selections), or the top N of a type. */
const ONE_WAY = '--top/--type cannot be combined with --select or --selections: choose signals one way';

/** The options, as data: flags, help, parsers and the rules between them (src/commands/shared/options.ts). */
const OPTIONS = {
  select: {
    flags: '--select <signal>',
    description: 'a signal to analyse, repeatable: KEYWORD_ID:SIGNAL_KEYWORD_ID, or its name',
    parse: list({ item: (_flag, value) => parseSelect(value) }),
  },
  selections: {
    flags: '--selections <path|->',
    description: 'JSON file (or - for stdin) of {keyword_id, signal_keyword_id} items',
    parse: given(),
  },
  top: {
    flags: '--top <N>',
    description: `analyse the top N signals (${rangeText(LIMITS.topLimit, '-')}); needs --type`,
    parse: number(LIMITS.topLimit, undefined, { integer: true, what: 'a whole number' }),
    rules: [
      { conflicts: 'select', message: ONE_WAY },
      { conflicts: 'selections', message: ONE_WAY },
      { needs: 'type', message: `--top needs --type (${TOP_TYPES.join(', ')})` },
    ],
  },
  type: {
    flags: '--type <type>',
    description: `signal type for --top: ${TOP_TYPES.join(', ')}`,
    parse: oneOf(TOP_TYPES),
    rules: [
      { conflicts: 'select', message: ONE_WAY },
      { conflicts: 'selections', message: ONE_WAY },
      { needs: 'top', message: '--type needs --top N' },
    ],
  },
  analysisMode: {
    flags: '--analysis-mode <mode>',
    description: `with --top: ${ANALYSIS_MODES.join(', ')}`,
    parse: oneOf(ANALYSIS_MODES),
    rules: [{ needs: 'top' }],
  },
  readiness: { flags: '--readiness <value>', description: 'with --top: readiness filter', parse: given(), rules: [{ needs: 'top' }] },
  therapeuticArea: {
    flags: '--therapeutic-area <value>',
    description: 'with --top: therapeutic area filter',
    parse: given(),
    rules: [{ needs: 'top' }],
  },
  includeAnalysed: { flags: '--include-analysed', description: 'also analyse signals that were analysed before', parse: on() },
  yes: { flags: '-y, --yes', description: 'confirm without asking when the service asks', parse: on() },
  wait: { flags: '--wait', description: 'then follow the status (as `rsi status --watch`)', parse: on() },
  interval: {
    flags: '--interval <seconds>',
    description: 'seconds between polls with --wait (default 2)',
    parse: seconds(INTERVAL_S.min, INTERVAL_S.max),
    rules: [{ needs: 'wait' }],
  },
} satisfies OptionSpecs;

/** The typed options of a command line (parseOptions over OPTIONS). */
export type RunFlags = OptionsOf<typeof OPTIONS>;

type RunRow = NonNullable<AnalysesResult['runs']>[number];
type SkipRow = NonNullable<AnalysesResult['skipped']>[number];

export const command: CommandDeclaration = {
  path: 'analyses run',
  description: 'start scoring analyses for chosen signals, or for the top N of a type',
  examples: [
    'rsi analyses run "My first project" --top 5 --type target --yes --wait',
    'rsi analyses run P --select EGFR:NSCLC --wait',
    "rsi signals P --json | jq '[.signals[] | select(.analysed | not)][:3]' | rsi analyses run P --selections -",
  ],
  fields: {
    list: [
      // What was started (`runs`) and what was skipped (`skipped`): JSON keeps each member in its
      // list, csv and tsv each part's rows with these columns.
      { ...field<RunRow>('id', 'runs.id', { header: 'RUN ID', id: true }), part: 'runs' },
      {
        ...field<RunRow | SkipRow>('keyword_id', 'runs.keyword_id', 'skipped.keyword_id', { header: 'KEYWORD ID', id: true }),
        part: ['runs', 'skipped'],
      },
      { ...field<RunRow>('kind', 'runs.kind'), part: 'runs' },
      { ...field<SkipRow>('signal_keyword_id', 'skipped.signal_keyword_id', { header: 'SIGNAL KEYWORD ID', id: true }), part: 'skipped' },
      { ...field<SkipRow>('reason', 'skipped.reason', { flexible: true }), part: 'skipped' },
      jsonOnly('runs', 'runs', 'in csv, tsv and the table each run is a row of its own: choose its columns (id, keyword_id, kind)'),
      jsonOnly(
        'skipped',
        'skipped',
        'in csv, tsv and the table each skipped item is a row of its own: choose its columns (keyword_id, reason, …)',
      ),
      {
        ...columnOnly(
          'section',
          'section names the part a row belongs to in csv and tsv; JSON keeps runs and skipped as their own members',
        ),
        table: { refused: 'section names the part a row belongs to in csv and tsv; a table shows each part under its title' },
      },
    ],
  },
  sample: { line: ['{project}', '--selections', '-', '--yes'] },
};

export function build(ctx: Context, runF: typeof run = run): Command {
  const cmd = withProjectArgument(commandFor(command));
  return withOptions(cmd, OPTIONS)
    .addHelpText(
      'after',
      `
--selections takes {keyword_id, signal_keyword_id} items: an array, a SignalList or a RunAnalyses
body, so \`rsi signals P --json\` can feed it. When the service asks for confirmation: a terminal
asks (default no), --yes confirms; a no, or no terminal: exit 7, nothing run. With --json and
--wait, NDJSON: the AnalysesResult then ProjectStatus lines. --timeout bounds the whole command
(1h by default with --wait). Sent once: a lost reply is read back and told (started, exit 0; not
started, its exit code; unknown, exit 8 with the command that checks).
Exit codes: 6 setup missing, 7 nothing run, 8 unavailable (after a 504 nothing was
recorded: run again), 9 --timeout, 10 an analysis this command started failed.`,
    )
    .action(async (typed: string | undefined, flags: Record<string, unknown>) => {
      const { canAsk, projectOrPick } = await import('../../shared/pick.js');
      const project = await projectOrPick(ctx, typed);
      const options = parseOptions(OPTIONS, flags);
      // A wait is bounded by --timeout, or by an hour from the command's start.
      await runF(runOptions(project, options, canAsk(ctx), options.wait ? ctx.deadline.limit(DEFAULT_TIMEOUT_MS) : 0), ctx);
    });
}

/** The typed flags (each value and each rule between them already checked) into what run takes. */
function runOptions(project: string, flags: RunFlags, canAsk = false, timeoutMs = DEFAULT_TIMEOUT_MS): AnalysesRunOptions {
  if (project.trim() === '') throw new UsageError('<project> must not be empty');
  const select = flags.select;
  const hasSelections = select.length > 0 || flags.selections !== undefined;
  const hasTop = flags.top !== undefined;
  // At a terminal, nothing chosen: the signals are offered in a checkbox when the command runs.
  const pick = !hasSelections && !hasTop && canAsk;
  if (!hasSelections && !hasTop && !pick) {
    throw new UsageError(
      'say what to analyse: --select KEYWORD_ID:SIGNAL_KEYWORD_ID (or a signal name), --selections PATH|-, or --top N --type T',
    );
  }
  let top: TopRequest | undefined;
  // --top needs --type (a rule of OPTIONS): with one, the other is there.
  if (flags.top !== undefined && flags.type !== undefined) {
    top = { type: flags.type, limit: flags.top };
    if (flags.analysisMode !== undefined) top.analysis_mode = flags.analysisMode;
    if (flags.readiness !== undefined) top.readiness = flags.readiness;
    if (flags.therapeuticArea !== undefined) top.therapeutic_area = flags.therapeuticArea;
  }
  return {
    project,
    select,
    selectionsFrom: flags.selections,
    top,
    includeAnalysed: flags.includeAnalysed,
    yes: flags.yes,
    ...(pick ? { pick } : {}),
    wait: flags.wait ? timing(flags.interval, timeoutMs) : undefined,
  };
}

export async function run(options: AnalysesRunOptions, ctx: Context): Promise<void> {
  // Read stdin/file before any request, so a bad file costs no round trip.
  let selections = [...options.select];
  if (options.selectionsFrom !== undefined) {
    selections.push(...parseSelectionsJson(await readInput('--selections', options.selectionsFrom, ctx), options.selectionsFrom));
    if (selections.length === 0)
      throw new UsageError(`--selections: ${options.selectionsFrom === '-' ? 'stdin' : options.selectionsFrom} holds no selections`);
  }
  selections = dedupe(selections);

  const body: RunAnalysesBody = {};
  if (options.top) {
    body.top = { ...options.top, ...(options.includeAnalysed ? { include_analysed: true } : {}) };
  } else {
    body.selections = selections;
  }
  if (options.includeAnalysed) body.include_analysed = true;

  await runWithin(options, ctx, body);
}

async function runWithin(options: AnalysesRunOptions, ctx: Context, body: RunAnalysesBody): Promise<void> {
  const { io } = ctx;
  const out = ctx.output();
  const { format } = out;
  const machine = printsDocuments(out);
  // stdin that carried the selections cannot also carry the answer to a question.
  const stdinFree = options.selectionsFrom !== '-';
  // --timeout bounds all of it from the command's start: ctx.signal ends with the bound, naming the step.
  const { deadline } = ctx;
  const [client, { resolveProject }, { shielded }] = await Promise.all([
    ctx.client(),
    import('../../../ops/resolve.js'),
    import('../../../io/shield.js'),
  ]);
  deadline.step(`the project ${options.project} to be looked up`);
  const project = await resolveProject(client, options.project, ctx.signal);
  deadline.step(`the signals of ${project.name}`);
  if (options.pick) {
    const { pickSignals } = await import('../../shared/pick.js');
    const signals = await ops.listProjectSignals(client, project.id, ctx.signal);
    body.selections = await pickSignals(ctx, signals, { includeAnalysed: options.includeAnalysed, projectName: project.name });
    if (body.selections.length === 0) {
      io.stderr.write('Nothing selected; nothing was run.\n');
      return;
    }
  }
  if (body.selections) body.selections = await ops.resolveSelectNames(body.selections, client, project, ctx.signal);
  const outcome = await ops.runAnalyses(client, project, body, {
    signal: ctx.signal,
    step: (what) => deadline.step(what),
    // A stop that comes while the service is read back waits for it (a second at most).
    shield: (fn) => shielded(fn, 'reading the service back to see whether the analyses started'),
    // The service asks: show what it asks about, then --yes, a prompt, or exit 7 when nobody can answer.
    confirm: async (question) => {
      // Confirmed already: one line saying what ran, not a question and a table that read, in a
      // CI log, like a prompt waiting for an answer.
      if (options.yes) {
        note(io, `confirmed by --yes: ${confirmQuestion(question, project.name).replace(/^Run/, 'running').replace('?', '')}`);
        return true;
      }
      await showConfirmation(io, question, project.name);
      if (!stdinFree || !canPrompt(io)) {
        if (machine) await printReply(out, question);
        throw new ConfirmationRequiredError(`the service asks to confirm before running analyses for "${project.name}"; nothing was run`, {
          hint: stdinFree
            ? 'run again with --yes to confirm (no terminal to ask on)'
            : 'run again with --yes to confirm (stdin carried --selections, so nobody can answer)',
        });
      }
      deadline.step('your answer to the confirmation');
      const prompter = await ctx.prompter();
      return prompter.confirm(confirmQuestion(question, project.name), { default: false });
    },
  });
  if (outcome.outcome === 'declined') {
    if (machine) await printReply(out, outcome.result);
    throw new DeclinedError('declined: nothing was run');
  }
  const { result } = outcome;

  // Past --timeout a write read back as done is still printed, without the names a request would cost.
  const names = ctx.signal.aborted ? new Map<string, string>() : await signalNames(client, project.id, format, result, ctx.signal);
  await printResult(out, result, project.name, names);
  if (options.wait === undefined) {
    // The runs go on at the service: say how to follow them (a command to paste, built from words).
    if ((result.runs?.length ?? 0) > 0) await tableNote(out, `Next: follow it with ${suggest(['rsi', 'status', project.name, '--watch'])}`);
    return;
  }

  const progress = await ctx.progress({ suffix: elapsedSince(ctx.clock) });
  const final = await watchWithOutput(
    (signal) => client.getProjectStatus(project.id, signal),
    // The bound counts from the command's start: the lookups and the run included.
    { ...options.wait, startedAt: deadline.startedAt },
    { out, clock: ctx.clock, signal: ctx.signal, progress },
    { ndjson: machine, projectName: project.name, picture: await analysesPicture(ctx), setupUrl: client.setupUrl(project.id) },
  );
  if (!machine) {
    await tableGap(out);
    await printStatus(out, final, project.name);
  }
  // Exit 10 only for the analyses this command started; others' failures are reported.

  assertNoFailedAnalyses(final, project.name, startedByReply(result), (line) => note(io, `note: ${line}`), 'started');
}

function confirmQuestion(result: AnalysesReply, projectName: string): string {
  const { count, differs } = ops.confirmPlan(result);
  const what = count === undefined || count === 0 ? 'these analyses' : `${count} ${count === 1 ? 'analysis' : 'analyses'}`;
  return `Run ${what} for "${projectName}"?${differs.length ? ` (the service's numbers differ: ${differs.join(', ')})` : ''}`;
}

/** What the service wants confirmed, on stderr: the assumption, the numbers, and the signals. */
async function showConfirmation(io: Context['io'], result: AnalysesReply, projectName: string): Promise<void> {
  // Every string here comes from the server or from other people (the project name): each line is
  // made one line (sanitizeLine) before it is written, so a crafted signal name, assumption or
  // project name cannot add a line or redraw the prompt.
  const { quoteServiceText, sanitizeLine } = await import('../../../io/sanitize.js');
  const lines = [`The service asks you to confirm before it runs analyses for "${sanitizeLine(projectName)}":`];
  if (result.assumption) lines.push(...quoteServiceText(result.assumption));
  const numbers = [
    result.available !== undefined ? `${result.available} available` : undefined,
    result.limit !== undefined ? `limit ${result.limit}` : undefined,
  ].filter(Boolean);
  if (numbers.length > 0) lines.push(`  ${numbers.join(', ')}`);
  for (const line of lines) note(io, line);
  const signals = result.signals ?? [];
  if (signals.length > 0) {
    const shown = signals.slice(0, 20);
    const rows = shown.map((s, i) => [
      i + 1,
      str(s.name) || str(s.keyword_name) || str(s.signal_keyword_id) || JSON.stringify(s),
      str(s.type),
      str(s.signal_keyword_id),
    ]);
    io.stderr.write('\n');
    io.stderr.write(
      formatTable(
        io,
        [
          { header: '#', numeric: true },
          { header: 'SIGNAL', flexible: true },
          { header: 'TYPE' },
          { header: 'SIGNAL KEYWORD ID', id: true },
        ],
        rows,
      ),
    );
    if (signals.length > shown.length) io.stderr.write(`  … and ${signals.length - shown.length} more\n`);
    io.stderr.write('\n');
  }
}

function str(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

/** The needs_confirmation reply on stdout for scripts (--json / ndjson): the API's body, exact. */
async function printReply(out: Output, result: AnalysesReply): Promise<void> {
  await printJsonLine(out, result);
}

/**
 * The result: with --json the API's body; otherwise one multi-part document on stdout (a `run`
 * row per started run, a `skipped` row per skipped selection, with its reason), and a line on
 * stderr saying what happened.
 */
/** The signals' names for the table only (src/ops/analyses.ts): the other formats show ids. */
async function signalNames(
  client: Pick<ApiClient, 'listSignals'>,
  projectId: string,
  format: OutputFormat,
  result: AnalysesReply,
  signal: AbortSignal,
): Promise<Map<string, string>> {
  return forPeople(format) ? ops.signalNames(client, projectId, result, signal) : new Map();
}

async function printResult(
  out: Output,
  result: AnalysesReply,
  projectName: string,
  names: ReadonlyMap<string, string> = new Map(),
): Promise<void> {
  const { io } = out;
  const readBack = confirmedByReadingBack(result) ? ` (${READ_BACK_NOTE})` : '';
  if (printsDocuments(out)) {
    if (readBack) note(io, `note: started ${result.runs?.length ?? 0} analyses for "${projectName}"${readBack}`);
    return printDocument(out, result);
  }
  type Run = NonNullable<AnalysesReply['runs']>[number];
  type Skip = NonNullable<AnalysesReply['skipped']>[number];
  const runs = result.runs ?? [];
  const skipped = result.skipped ?? [];
  if (runs.length > 0)
    io.stderr.write(`✓ Started ${runs.length} ${runs.length === 1 ? 'analysis' : 'analyses'} for "${projectName}"${readBack}\n`);
  else io.stderr.write(`No analysis was started for "${projectName}".\n`);
  if (skipped.length > 0) io.stderr.write(`Skipped ${skipped.length}${inTable(out, ' (below)')}\n`);
  const fields = command.fields?.list ?? [];
  await printSections(out, [
    {
      name: 'run',
      rows: runs,
      columns: columnsOf<Run>(fields, { part: 'runs' }),
      // On a terminal what the run is first, then its (shortened) ids.
      tableColumns: [
        ...(names.size ? [{ header: 'NAME', value: (r: Run) => names.get(r.keyword_id ?? '') ?? '', flexible: true }] : []),
        ...columnsOf<Run>(fields, { part: 'runs', only: ['kind', 'keyword_id', 'id'] }),
      ],
    },
    {
      name: 'skipped',
      ...(skipped.length > 0 ? { title: 'skipped' } : {}),
      rows: skipped,
      columns: columnsOf<Skip>(fields, { part: 'skipped' }),
      tableColumns: [
        ...(names.size ? [{ header: 'NAME', value: (s: Skip) => names.get(s.signal_keyword_id ?? '') ?? '', flexible: true }] : []),
        ...columnsOf<Skip>(fields, { part: 'skipped', only: ['reason', 'keyword_id', 'signal_keyword_id'] }),
      ],
    },
  ]);
  const analysed = skipped.filter((s) => /already analysed/i.test(s.reason ?? '')).length;
  if (analysed > 0) {
    const them = analysed === 1 ? 'it' : 'them';
    await tableNote(out, `hint: ${analysed} skipped as already analysed: add --include-analysed to analyse ${them} again`);
  }
}
