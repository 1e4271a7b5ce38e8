/** Starting scoring analyses: validation, confirmation, setup and scan checks, recorded runs. */
import { HttpError, type Req, type Res } from './http.js';
import type { SandboxContext } from './context.js';
import { ANALYSIS_MODES, SIGNAL_TYPES, type AnalysisMode, type SignalSeed, type SignalType } from './data.js';
import { badRequest, jsonBody } from './params.js';
import type { Project, Projects } from './projects.js';

export function runAnalyses(ctx: SandboxContext, projects: Projects, p: Project, req: Req): Res {
  const body = jsonBody(req);
  const bool = (v: unknown, name: string): boolean => {
    if (v === undefined) return false;
    if (typeof v !== 'boolean') throw badRequest(`${name} must be a boolean`);
    return v;
  };
  const includeAnalysedTop = bool(body.include_analysed, 'include_analysed');
  const confirmedTop = bool(body.confirmed, 'confirmed');
  let selections: Array<{ keyword_id: string; signal_keyword_id: string }> | undefined;
  if (body.selections !== undefined) {
    if (!Array.isArray(body.selections)) throw badRequest('selections must be an array of {keyword_id, signal_keyword_id}');
    selections = body.selections.map((s: unknown, i: number) => {
      const sel = s as Record<string, unknown>;
      if (typeof s !== 'object' || s === null || typeof sel.keyword_id !== 'string' || typeof sel.signal_keyword_id !== 'string') {
        throw badRequest(`selections[${i}] must have string keyword_id and signal_keyword_id`);
      }
      return { keyword_id: sel.keyword_id, signal_keyword_id: sel.signal_keyword_id };
    });
    if (selections.length === 0) throw badRequest('selections must not be empty');
    if (selections.length > 100) throw badRequest('selections may hold at most 100 items');
  }
  let top: { type: SignalType; limit: number; mode: AnalysisMode; confirmed: boolean; includeAnalysed: boolean } | undefined;
  if (body.top !== undefined) {
    const t = body.top as Record<string, unknown>;
    if (typeof t !== 'object' || t === null || Array.isArray(t)) throw badRequest('top must be an object');
    if (typeof t.type !== 'string' || !(SIGNAL_TYPES as readonly string[]).includes(t.type))
      throw badRequest(`top.type must be one of ${SIGNAL_TYPES.join(', ')}`);
    if (typeof t.limit !== 'number' || !Number.isInteger(t.limit) || t.limit < 1 || t.limit > 100)
      throw badRequest('top.limit must be an integer between 1 and 100');
    const mode = t.analysis_mode ?? 'most_promising';
    if (typeof mode !== 'string' || !(mode in ANALYSIS_MODES))
      throw badRequest(`top.analysis_mode must be one of ${Object.keys(ANALYSIS_MODES).join(', ')}`);
    for (const f of ['readiness', 'therapeutic_area'] as const) {
      if (t[f] !== undefined && typeof t[f] !== 'string') throw badRequest(`top.${f} must be a string`);
    }
    top = {
      type: t.type as SignalType,
      limit: t.limit,
      mode: mode as AnalysisMode,
      confirmed: bool(t.confirmed, 'top.confirmed') || confirmedTop,
      includeAnalysed: bool(t.include_analysed, 'top.include_analysed') || includeAnalysedTop,
    };
  }
  if (!selections && !top) throw badRequest('Provide selections or top');
  if (selections && top) throw badRequest('Provide either selections or top, not both');

  if (!p.setupDone) {
    throw new HttpError(409, { error: `Scoring setup is missing for this project. Finish it at ${projects.setupUrl(p)}` });
  }
  if (!projects.scanDone(p)) {
    throw new HttpError(409, { error: "The project's scan has not finished yet; selections must match a finished scan." });
  }

  const chosen: SignalSeed[] = [];
  const skipped: Array<{ keyword_id: string; signal_keyword_id: string; reason: string }> = [];
  let assumption: string;
  let available: number;
  let limit: number;
  if (selections) {
    const signals = projects.signalsOf(p);
    const seen = new Set<string>();
    for (const sel of selections) {
      const s = signals.find(
        (x) => x.keyword_id === sel.keyword_id.toLowerCase() && x.signal_keyword_id === sel.signal_keyword_id.toLowerCase(),
      );
      if (!s) {
        throw new HttpError(409, {
          error: `Selection ${sel.keyword_id}:${sel.signal_keyword_id} does not match a signal of the finished scan`,
        });
      }
      const key = `${s.keyword_id}:${s.signal_keyword_id}`;
      if (seen.has(key)) skipped.push({ ...sel, reason: 'duplicate selection' });
      else if (projects.inFlight(p, s)) skipped.push({ ...sel, reason: 'analysis already running' });
      else if (projects.analysed(p, s) && !includeAnalysedTop) skipped.push({ ...sel, reason: 'already analysed' });
      else chosen.push(s);
      seen.add(key);
    }
    assumption = `Scoring ${chosen.length} selected signal${chosen.length === 1 ? '' : 's'}.`;
    available = signals.length;
    limit = selections.length;
  } else {
    const t = top!;
    const candidates = projects
      .ordered(p, t.mode, t.type)
      .filter((s) => !projects.inFlight(p, s) && (t.includeAnalysed || !projects.analysed(p, s)));
    const picked = candidates.slice(0, t.limit);
    available = candidates.length;
    limit = t.limit;
    assumption = `Score the top ${picked.length} ${t.type} signal${picked.length === 1 ? '' : 's'} ranked by "${ANALYSIS_MODES[t.mode]}"${t.includeAnalysed ? '' : ', skipping signals already analysed'}.`;
    if (!t.confirmed) {
      return {
        status: 202,
        json: {
          needs_confirmation: true,
          assumption,
          available,
          limit,
          signals: picked.map((s) => ({
            keyword_id: s.keyword_id,
            signal_keyword_id: s.signal_keyword_id,
            name: s.name,
            type: s.type,
            rank: s.rank,
          })),
          runs: [],
          skipped: [],
        },
      };
    }
    chosen.push(...picked);
  }

  if (ctx.faults.has('analyses-504')) {
    throw new HttpError(504, { error: 'The scoring service did not respond, and no run was recorded.' });
  }
  const now = ctx.clock.now();
  const mode = top?.mode ?? 'most_promising';
  const runs = chosen.map((s) => projects.record(p, s, now, mode));
  ctx.stats.runs += runs.length;
  return {
    status: 202,
    json: {
      needs_confirmation: false,
      assumption,
      available,
      limit,
      signals: chosen.map((s) => ({
        keyword_id: s.keyword_id,
        signal_keyword_id: s.signal_keyword_id,
        name: s.name,
        type: s.type,
        rank: s.rank,
      })),
      runs: runs.map((r) => ({ id: r.id, keyword_id: r.signalKeywordId, kind: r.kind })),
      skipped,
    },
  };
}
