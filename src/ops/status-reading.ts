/**
 * How a project's status reads, once for both front-ends: the counts, the one-line description,
 * a stable name for an analysis across polls, and which failures are news. `rsi status` (and its
 * --watch live line), the exit policy of --watch and `analyses run --wait`
 * (src/commands/shared/exit-policy.ts) and the MCP tool `wait_for_scoring` (src/mcp/wait.ts) all
 * read a status through these, so "3/5 analyses done · 1 failed" and "failed while watching" mean
 * the same everywhere. Plain data in, plain data out: nothing here prints or waits.
 */
import type { ProjectStatus } from '../client/schemas.js';

export type StatusAnalysis = ProjectStatus['analyses'][number];

export interface AnalysisCounts {
  total: number;
  done: number;
  failed: number;
  /** Neither done nor failed (pending, running, or no status yet). */
  active: number;
}

export function countAnalyses(status: ProjectStatus): AnalysisCounts {
  let done = 0;
  let failed = 0;
  let active = 0;
  for (const a of status.analyses) {
    if (a.status === 'done') done += 1;
    else if (a.status === 'failed') failed += 1;
    else active += 1;
  }
  return { total: status.analyses.length, done, failed, active };
}

const NEXT_LABEL: Record<ProjectStatus['next'], string | undefined> = {
  wait: undefined,
  run_analyses: 'ready to run analyses',
  list_signals: 'signals ready',
};

/**
 * One short line: `scoring running · 3/5 analyses done · 1 failed`, and what comes next when it is
 * no longer waiting. Made of the status's enums and numbers only (no service prose).
 */
export function describeStatus(status: ProjectStatus): string {
  const parts: string[] = [];
  if (!status.signals_ready && status.scoring === 'not_started') parts.push('scanning for signals');
  else parts.push(`scoring ${status.scoring.replaceAll('_', ' ')}`);
  const counts = countAnalyses(status);
  if (counts.total > 0) {
    parts.push(`${counts.done}/${counts.total} analyses done`);
    if (counts.failed > 0) parts.push(`${counts.failed} failed`);
  }
  const next = NEXT_LABEL[status.next];
  if (next) parts.push(next);
  return parts.join(' · ');
}

/** A stable name for an analysis across polls: its task, else its runs, else its keyword. */
export function analysisKey(a: StatusAnalysis, index: number): string {
  const runs = (a.runs ?? []).map((r) => r.id).filter((id): id is string => typeof id === 'string');
  if (a.task_id) return `task:${a.task_id}`;
  if (runs.length > 0) return `runs:${runs.join(',')}`;
  return a.keyword_id ? `keyword:${a.keyword_id}` : a.keyword_name ? `name:${a.keyword_name}` : `#${index}`;
}

/** Whether a failed analysis is news to the one reading (and, for the CLI, counts in its exit status). */
export type FailureFilter = (analysis: StatusAnalysis, index: number) => boolean;

/**
 * Failures since the first status seen: only analyses not already failed then count. A failure in
 * the project's history is not news, and a watch that ended "failed" on it would do so forever.
 */
export function failedSince(first: ProjectStatus): FailureFilter {
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

/** The failed analyses, split into those `counts` (news) and the earlier ones. */
export function failures(status: ProjectStatus, counts: FailureFilter): { news: StatusAnalysis[]; earlier: StatusAnalysis[] } {
  const news: StatusAnalysis[] = [];
  const earlier: StatusAnalysis[] = [];
  status.analyses.forEach((a, i) => {
    if (a.status === 'failed') (counts(a, i) ? news : earlier).push(a);
  });
  return { news, earlier };
}
