/**
 * The exit policy of a watch: when scoring is done, exit 10 for a failed analysis this command is
 * answerable for (`status --watch`: failed while it watched, ops' failedSince; `analyses run
 * --wait`: one it started, ops' startedByReply), and a note for the others. Which failures are
 * news is ops' status reading (src/ops/status-reading.ts), the one `wait_for_scoring` uses.
 */
import type { ProjectStatus } from '../../client/schemas.js';
import { suggest } from '../../io/text.js';
import { AnalysisFailedError } from '../../errors.js';
import { countAnalyses, type FailureFilter, failures, type StatusAnalysis } from '../../ops/status-reading.js';
import { plain } from './status-view.js';

/**
 * Exit 10: scoring finished and an analysis this command is answerable for failed (`counts`).
 * Other failed analyses are reported through `note`, not made fatal. Only `--watch` and `--wait`
 * apply it; a plain `status` reports the state and exits 0. The message counts what the service
 * said (its failed analyses of its total), names each failed keyword once, and the hint is the
 * command that runs only those again. `whose`: the command started them (`analyses run --wait`) or
 * saw them fail (`status --watch`).
 */
export function assertNoFailedAnalyses(
  status: ProjectStatus,
  projectName: string,
  counts: FailureFilter = () => true,
  note?: (line: string) => void,
  whose: 'started' | 'watched' = 'watched',
): void {
  const { news: ours, earlier } = failures(status, counts);
  const list = (items: StatusAnalysis[]): string => {
    const names = keywordsOf(items).map((k) => k.name);
    return names.length > 3 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.join(', ');
  };
  if (earlier.length > 0) {
    note?.(
      `${earlier.length} ${earlier.length === 1 ? 'analysis' : 'analyses'} of "${projectName}" had failed before, not while this command watched (not counted in the exit status): ${list(earlier)}`,
    );
  }
  if (status.scoring !== 'done' || ours.length === 0) return;
  const keywords = keywordsOf(ours);
  const { failed, total } = countAnalyses(status);
  const one = keywords.length === 1;
  const count = `${keywords.length} ${one ? 'keyword' : 'keywords'}`;
  const failedHow = whose === 'started' ? `${count} this command started failed` : `${count} failed while this command watched`;
  const said = `the service reports ${failed} of ${total} ${total === 1 ? 'analysis' : 'analyses'} failed`;
  const selects = keywords.every((k) => k.select !== undefined) ? keywords.flatMap((k) => ['--select', k.select!]) : undefined;
  const retry = selects
    ? `run only ${one ? 'that one' : 'those'} again with ${suggest(['rsi', 'analyses', 'run', projectName, ...selects, '--include-analysed', '--wait'])}; `
    : '';
  throw new AnalysisFailedError(`scoring of "${projectName}" is done, but ${failedHow}: ${list(ours)} (${said})`, {
    hint: `${retry}details in ${suggest(['rsi', 'status', projectName])}, the others' results in ${suggest(['rsi', 'opportunities', projectName])}`,
  });
}

/**
 * Each failed keyword once (a keyword run twice and failed twice is one), in the status's order:
 * its name for people, and what `--select` takes for it (the name, else the keyword's id, which is
 * the signal's: `analyses run` resolves either among the project's signals).
 */
function keywordsOf(items: readonly StatusAnalysis[]): { name: string; select: string | undefined }[] {
  const seen = new Map<string, { name: string; select: string | undefined }>();
  for (const a of items) {
    const key = a.keyword_id ?? a.keyword_name ?? `#${seen.size}`;
    if (seen.has(key)) continue;
    seen.set(key, { name: plain(a.keyword_name ?? a.keyword_id ?? '?'), select: a.keyword_name ?? a.keyword_id });
  }
  return [...seen.values()];
}
