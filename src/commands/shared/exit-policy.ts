/**
 * The exit policy of a watch: when scoring is done, exit 10 for a failed analysis this command is
 * answerable for (`status --watch`: failed while it watched; `analyses run --wait`: one it started),
 * and a note for the others.
 */
import { suggest } from '../../io/text.js';
import { AnalysisFailedError } from '../../errors.js';
import { plain, type StatusAnalysis, type StatusLike } from './status-view.js';

/** Decides whether a failed analysis is this command's to report with exit 10. */
export type FailureFilter = (analysis: StatusAnalysis, index: number) => boolean;

/** A stable name for an analysis across polls: its task, else its runs, else its keyword. */
function analysisKey(a: StatusAnalysis, index: number): string {
  const runs = (a.runs ?? []).map((r) => r.id).filter((id): id is string => typeof id === 'string');
  if (a.task_id) return `task:${a.task_id}`;
  if (runs.length > 0) return `runs:${runs.join(',')}`;
  return a.keyword_id ? `keyword:${a.keyword_id}` : a.keyword_name ? `name:${a.keyword_name}` : `#${index}`;
}

/**
 * For `status --watch`: only analyses that were not already failed at the first poll count. A
 * failure in the project's history is not news, and a watch that exits 10 on it would do so forever.
 */
export function failedDuringWatch(first: StatusLike): FailureFilter {
  const before = new Set(first.analyses.flatMap((a, i) => (a.status === 'failed' ? [analysisKey(a, i)] : [])));
  return (a, i) => !before.has(analysisKey(a, i));
}

/**
 * For `analyses run --wait`: only the analyses its own 202 reply started, matched by run id (or a
 * task id equal to one); an analysis that carries neither is matched by keyword id, the only link
 * left.
 */
export function startedByReply(reply: { runs?: ReadonlyArray<{ id: string; keyword_id: string }> | undefined }): FailureFilter {
  const runIds = new Set((reply.runs ?? []).map((r) => r.id));
  const keywordIds = new Set((reply.runs ?? []).map((r) => r.keyword_id));
  return (a) => {
    const ids = (a.runs ?? []).map((r) => r.id).filter((id): id is string => typeof id === 'string');
    if (a.task_id !== undefined) ids.push(a.task_id);
    if (ids.length > 0) return ids.some((id) => runIds.has(id));
    return a.keyword_id !== undefined && keywordIds.has(a.keyword_id);
  };
}

/**
 * Exit 10: scoring finished and an analysis this command is answerable for failed (`counts`).
 * Other failed analyses are reported through `note`, not made fatal. Only `--watch` and `--wait`
 * apply it; a plain `status` reports the state and exits 0.
 */
export function assertNoFailedAnalyses(
  status: StatusLike,
  projectName: string,
  counts: FailureFilter = () => true,
  note?: (line: string) => void,
): void {
  const failed = status.analyses.flatMap((a, i) => (a.status === 'failed' ? [{ a, i }] : []));
  const ours = failed.filter(({ a, i }) => counts(a, i));
  const earlier = failed.filter(({ a, i }) => !counts(a, i));
  const list = (items: typeof failed): string => {
    const names = items.map(({ a }) => plain(a.keyword_name ?? a.keyword_id ?? '?'));
    return names.length > 3 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.join(', ');
  };
  if (earlier.length > 0) {
    note?.(
      `${earlier.length} ${earlier.length === 1 ? 'analysis' : 'analyses'} of "${projectName}" had failed before, not while this command watched (not counted in the exit status): ${list(earlier)}`,
    );
  }
  if (status.scoring !== 'done' || ours.length === 0) return;
  throw new AnalysisFailedError(
    `scoring of "${projectName}" is done, but ${ours.length} of ${status.analyses.length} analyses failed: ${list(ours)}`,
    {
      hint: `see ${suggest(['rsi', 'status', projectName])} for details; results of the others are in ${suggest(['rsi', 'opportunities', projectName])}`,
    },
  );
}
