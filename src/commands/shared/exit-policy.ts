/**
 * The exit policy of a watch: when scoring is done, exit 10 for a failed analysis this command is
 * answerable for (`status --watch`: failed while it watched, ops' failedSince; `analyses run
 * --wait`: one it started, ops' startedByReply), and a note for the others. Which failures are
 * news is ops' status reading (src/ops/status-reading.ts), the one `wait_for_scoring` uses.
 */
import { suggest } from '../../io/text.js';
import { AnalysisFailedError } from '../../errors.js';
import { type FailureFilter, failures, type StatusAnalysis } from '../../ops/status-reading.js';
import { plain, type StatusLike } from './status-view.js';

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
  const { news: ours, earlier } = failures(status, counts);
  const list = (items: StatusAnalysis[]): string => {
    const names = items.map((a) => plain(a.keyword_name ?? a.keyword_id ?? '?'));
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
