/** What a project shows of its progress: status, signals (discovery candidates) and opportunities. */
import type { Res } from './http.js';
import { ANALYSIS_MODES, SIGNAL_TYPES, keywordCard, type AnalysisMode, type SignalType } from './data.js';
import { badRequest, intParam } from './params.js';
import type { Project, Projects } from './projects.js';

const STORAGE_PARAMS = ['s3_path', 'path', 'bucket', 'location'];

export function status(projects: Projects, p: Project): Record<string, unknown> {
  const scanning = !projects.scanDone(p);
  const statuses = p.runs.map((r) => projects.runStatus(r));
  const unfinished = statuses.filter((s) => s === 'pending' || s === 'running').length;
  const failed = statuses.filter((s) => s === 'failed').length;
  const finished = statuses.length - unfinished;
  const scoring = p.runs.length === 0 ? 'not_started' : unfinished > 0 ? 'running' : 'done';
  let next: string;
  let summary: string;
  if (scanning) {
    next = 'wait';
    summary = 'The discovery scan is running; signals will be ready when it finishes.';
  } else if (unfinished > 0) {
    next = 'wait';
    summary = `Scoring is running: ${finished} of ${p.runs.length} analyses finished.`;
  } else if (p.runs.length === 0) {
    next = 'list_signals';
    summary = p.setupDone
      ? `Signals are ready (${projects.signalsOf(p).length}). Review them and run analyses on the most promising.`
      : `Signals are ready (${projects.signalsOf(p).length}). Scoring setup is not finished yet: ${projects.setupUrl(p)}`;
  } else {
    next = 'run_analyses';
    summary = `Scoring is done: ${p.runs.length} analyses finished${failed ? `, ${failed} failed` : ''}. Results are in opportunities; run more analyses to extend them.`;
  }
  return {
    signals_ready: !scanning,
    scoring,
    summary,
    next,
    analyses: p.runs.map((r) => {
      const runStatus = projects.runStatus(r);
      return {
        keyword_id: r.signalKeywordId,
        keyword_name: r.signalName,
        task_id: r.taskId,
        status: runStatus,
        updated_at: projects.runUpdatedAt(r),
        runs: [{ id: r.id, type: r.kind, status: runStatus }],
      };
    }),
  };
}

export function signals(projects: Projects, p: Project, q: URLSearchParams): Res {
  for (const param of STORAGE_PARAMS) {
    if (q.has(param)) throw badRequest(`Parameter "${param}" is not allowed`);
  }
  const type = q.get('type');
  if (type !== null && !(SIGNAL_TYPES as readonly string[]).includes(type))
    throw badRequest(`type must be one of ${SIGNAL_TYPES.join(', ')}`);
  const mode = q.get('analysis_mode') ?? 'most_promising';
  if (!(mode in ANALYSIS_MODES)) throw badRequest(`analysis_mode must be one of ${Object.keys(ANALYSIS_MODES).join(', ')}`);
  const limit = intParam(q, 'limit', 100, 1, 500);
  const all = projects.scanDone(p) ? projects.ordered(p, mode as AnalysisMode, (type ?? undefined) as SignalType | undefined) : [];
  const list = all.slice(0, limit).map((s, i) => ({
    keyword_id: s.keyword_id,
    signal_keyword_id: s.signal_keyword_id,
    name: s.name,
    type: s.type,
    position: i + 1,
    rank: s.rank,
    analysed: projects.analysed(p, s),
  }));
  return {
    status: 200,
    json: {
      analysis_mode: mode,
      analysis_mode_label: ANALYSIS_MODES[mode as AnalysisMode],
      filter: type ?? 'all',
      total: all.length,
      unanalysed_total: all.filter((s) => !projects.analysed(p, s)).length,
      signals: list,
    },
  };
}

export function opportunities(projects: Projects, p: Project): Record<string, unknown> {
  const byStatus: Record<string, number> = { pending: 0, running: 0, done: 0, failed: 0 };
  const items = p.runs.map((r) => {
    const runStatus = projects.runStatus(r);
    byStatus[runStatus]!++;
    return {
      id: r.id,
      keyword_id: r.signalKeywordId,
      keyword_name: r.signalName,
      kind: r.kind,
      status: runStatus,
      updated_at: projects.runUpdatedAt(r),
    };
  });
  const keywords = p.runs
    .filter((r) => projects.runStatus(r) === 'done')
    .map((r) => {
      const card = keywordCard(projects.catalogue.byId.get(r.signalKeywordId)!);
      const scores = card.scores as Record<string, { score: number } | null>;
      return {
        keyword_id: r.signalKeywordId,
        name: r.signalName,
        type: r.signalType,
        analysis_mode: r.mode,
        score: scores.composite?.score ?? null,
        momentum: scores.momentum?.score ?? null,
        maturity: scores.maturity?.score ?? null,
        competition: scores.competition?.score ?? null,
        risk: scores.risk?.score ?? null,
        translation: scores.translation?.score ?? null,
        scored_at: projects.runUpdatedAt(r),
      };
    })
    .sort((a, b) => (b.score ?? 0) - (a.score ?? 0));
  return {
    keywords,
    project_analyses: {
      total: p.runs.length,
      generating: byStatus.pending,
      running: byStatus.running,
      completed: byStatus.done,
      by_status: byStatus,
      items,
    },
    error: null,
  };
}
