/**
 * How a project's status reads to a person: the one-line description and live-line picture the
 * watch shows, the next step to type, and the full status view of `rsi status` (and of `analyses
 * run --wait` when it ends).
 */
import { formatSeconds, suggest } from '../../io/text.js';
import type { ProjectStatus } from '../../client/schemas.js';
import type { Clock, Io } from '../../io/io.js';
import { sanitizeLine } from '../../io/sanitize.js';
import type { Output } from '../../io/formats.js';
import { printSections } from '../../io/output.js';
import { printSummary } from '../../io/replies.js';
import { countAnalyses, describeStatus } from '../../ops/status-reading.js';
import { columnsOf } from '../declaration.js';
import { ANALYSIS_TABLE_ORDER, type AnalysisRow, STATUS_FIELDS } from '../status/fields.js';

/**
 * The live line and the timeout message: our one-line reading of the state, then the server's
 * own `summary`, which may say what we cannot infer (setup missing, a scan that stalled).
 */
export function statusLine(status: ProjectStatus): string {
  const summary = summaryOf(status);
  return summary ? `${describeStatus(status)} · ${summary}` : describeStatus(status);
}

/** The server's summary on one line, sanitised; empty when it sent none. */
export function summaryOf(status: ProjectStatus): string {
  return plain(status.summary ?? '');
}

/**
 * Server text on one line: runs of white space (line breaks included) become one space, and the
 * one terminal sanitiser makes every control or bidi character a visible escape, so a summary or a
 * keyword name can neither redraw nor reorder the screen.
 */
export function plain(text: string): string {
  return sanitizeLine(text.replace(/\s+/g, ' ').trim());
}

/** The `next` value as something to type. */
export function nextStep(status: ProjectStatus, projectRef: string): string {
  const p = projectRef;
  switch (status.next) {
    case 'wait':
      return `wait: ${suggest(['rsi', 'status', p, '--watch'])}`;
    case 'run_analyses':
      return `run analyses: ${suggest(['rsi', 'signals', p])}, then ${suggest(['rsi', 'analyses', 'run', p, '--top', '5', '--type', 'target'])}`;
    case 'list_signals':
      return `list signals: ${suggest(['rsi', 'signals', p])}`;
    default:
      return status.next;
  }
}

/**
 * Shows one status for a person, through the output module: on `table` the summary and next step,
 * then the analyses; on `tsv`/`csv` one multi-part document on stdout (a `status` row, then one
 * `analysis` row per analysis with its task id and runs, ids included) while the summary also goes
 * to stderr, so a pipe gets data and the person still sees the state.
 */
export async function printStatus(target: Output, status: ProjectStatus, projectName: string): Promise<void> {
  type Analysis = AnalysisRow;
  const summary = [
    // Service text on its own line each: a line break in a name or summary cannot add lines that
    // read as rsi's (issue 20).
    `Project:  ${plain(projectName)}`,
    `Summary:  ${summaryOf(status)}`,
    `Signals:  ${status.signals_ready ? 'ready' : 'not ready'}`,
    `Scoring:  ${status.scoring.replaceAll('_', ' ')}${describeCounts(status)}`,
    `Next:     ${nextStep(status, projectName)}`,
  ].join('\n');
  const analyses = status.analyses as readonly Analysis[];
  // Above a table the summary is read with it; beside tsv/csv it goes to stderr, so a pipe gets data
  // and the person still sees the state.
  await printSummary(target, summary, analyses.length > 0);
  await printSections(target, [
    {
      name: 'status',
      // In a table, the summary above says it.
      tableless: true,
      rows: [status],
      columns: columnsOf<ProjectStatus>(STATUS_FIELDS),
      // Its `analyses` are the part below.
      elsewhere: ['analyses'],
    },
    {
      name: 'analysis',
      rows: analyses,
      columns: columnsOf<AnalysisRow>(STATUS_FIELDS, { part: 'analyses' }),
      tableColumns: columnsOf<AnalysisRow>(STATUS_FIELDS, { part: 'analyses', only: ANALYSIS_TABLE_ORDER }),
    },
  ]);
}

function describeCounts(status: ProjectStatus): string {
  const c = countAnalyses(status);
  if (c.total === 0) return '';
  return ` (${c.done}/${c.total} analyses done${c.failed > 0 ? `, ${c.failed} failed` : ''})`;
}

/** For the live line: ` · 42 s` since the watch began (whole seconds, so it ticks calmly). */
export function elapsedSince(clock: Clock): () => string {
  const started = clock.now();
  return () => ` · ${formatSeconds(Math.floor((clock.now() - started) / 1000) * 1000)}`;
}

/**
 * On a terminal, the live line ends with a bar of analyses done/failed/total (the elapsed time
 * follows it); elsewhere there is no picture.
 */
export async function analysesPicture(ctx: {
  io: Io;
  env: Readonly<Record<string, string | undefined>>;
}): Promise<((status: ProjectStatus) => string) | undefined> {
  const { progressStyle, progressBar } = await import('../../io/pictures.js');
  const style = progressStyle(ctx.io, ctx.env);
  if (!style) return undefined;
  return (status) => {
    const counts = countAnalyses(status);
    return counts.total > 0 ? ` ${progressBar(counts, style)}` : '';
  };
}
