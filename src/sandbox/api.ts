/**
 * The nine API routes of shared/service-api.md with their validation, scopes, roles and errors,
 * and the project lifecycle over (scaled) time: scan → signals → setup → runs → opportunities.
 */
import { randomUUID } from 'node:crypto';
import { HttpError, type Req, type Res } from './http.js';
import type { SandboxContext } from './server.js';
import type { OAuthServer, Caller } from './oauth.js';
import { USER } from './oauth.js';
import {
  ACTIVITIES,
  ANALYSIS_MODES,
  Catalogue,
  RELATIONS,
  SIGNAL_TYPES,
  keywordCard,
  modeWeight,
  projectSignals,
  relationItem,
  relationTotal,
  uuidFor,
  type Activity,
  type AnalysisMode,
  type Keyword,
  type Relation,
  type SignalSeed,
  type SignalType,
} from './data.js';

/** Sandbox seconds a new project's initial scan takes. */
export const SCAN_SECONDS = 30;
/** Sandbox seconds a run stays pending, then running. */
export const RUN_PENDING_SECONDS = 5;
export const RUN_RUNNING_SECONDS = 20;
/** A scan that failed to start is retried by the service after this many sandbox seconds. */
export const SCAN_RETRY_SECONDS = 10;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INCLUDE_SECTIONS = ['indications', 'assets', 'pipeline_targets', 'sponsors'] as const;
const STORAGE_PARAMS = ['s3_path', 'path', 'bucket', 'location'];
const GOALS = ['target', 'indication', 'modality'];
type Role = 'owner' | 'editor' | 'viewer';

interface Run {
  id: string;
  taskId: string;
  keywordId: string;
  signalKeywordId: string;
  signalName: string;
  signalType: SignalType;
  kind: string;
  mode: AnalysisMode;
  createdAt: number;
  fails: boolean;
}

export interface Project {
  id: string;
  name: string;
  createdAt: number;
  members: Map<string, Role>;
  brief: string | null;
  watchlist: unknown[];
  operand: string | null;
  goals: string[];
  primaryFilterType: string;
  anchor: Keyword;
  scanStartsAt: number;
  setupDone: boolean;
  runs: Run[];
  signals?: SignalSeed[];
}

export class ApiService {
  readonly catalogue = new Catalogue();
  readonly projects = new Map<string, Project>();

  constructor(
    private readonly ctx: SandboxContext,
    private readonly oauth: OAuthServer,
  ) {
    this.seedProjects();
  }

  routeName(method: string, path: string): string {
    const p = path
      .replace(/^\/api\/v1\/keywords\/[^/]+\/relations$/, '/api/v1/keywords/{keywordId}/relations')
      .replace(/^\/api\/v1\/keywords\/[^/]+$/, '/api/v1/keywords/{keywordId}')
      .replace(/^\/api\/v1\/projects\/[^/]+\/(status|signals|opportunities|analyses)$/, '/api/v1/projects/{projectId}/$1');
    return `${method} ${p}`;
  }

  async handle(req: Req): Promise<Res> {
    try {
      return this.route(req);
    } catch (error) {
      if (error instanceof HttpError && error.status === 401) {
        return { status: 401, headers: { 'www-authenticate': this.oauth.wwwAuthenticate }, json: error.body };
      }
      if (error instanceof HttpError && error.status === 403 && (error.body as { error?: string }).error === 'insufficient_scope') {
        const scope = (error.body as { scope: string }).scope;
        return {
          status: 403,
          headers: { 'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"` },
          json: error.body,
        };
      }
      throw error;
    }
  }

  private route(req: Req): Res {
    const { method } = req;
    const parts = req.path.split('/').slice(3); // ['', 'api', 'v1', ...]
    const caller = this.oauth.authenticate(req.headers.authorization);
    const q = req.url.searchParams;

    if (parts[0] === 'keywords') {
      if (method !== 'GET') throw methodNotAllowed();
      requireScope(caller, 'service:read');
      if (parts.length === 1) return this.searchKeywords(q);
      const kw = this.keyword(parts[1]!);
      if (parts.length === 2) return this.getKeyword(kw, q);
      if (parts.length === 3 && parts[2] === 'relations') return this.relations(kw, q);
    }
    if (parts[0] === 'projects') {
      if (parts.length === 1) {
        if (method === 'GET') {
          requireScope(caller, 'service:read');
          return this.listProjects(caller);
        }
        if (method === 'POST') {
          requireScope(caller, 'projects:write');
          return this.createProject(req, caller);
        }
        throw methodNotAllowed();
      }
      if (parts.length === 3) {
        const sub = parts[2];
        if (sub === 'analyses') {
          if (method !== 'POST') throw methodNotAllowed();
          requireScope(caller, 'analyses:run');
          const { project, role } = this.member(parts[1]!, caller);
          if (role === 'viewer') throw new HttpError(403, { error: 'Only editors and owners of the project can run analyses' });
          return this.runAnalyses(project, req);
        }
        if (sub === 'status' || sub === 'signals' || sub === 'opportunities') {
          if (method !== 'GET') throw methodNotAllowed();
          requireScope(caller, 'service:read');
          const { project } = this.member(parts[1]!, caller);
          if (sub === 'status') return { status: 200, json: this.status(project) };
          if (sub === 'signals') return this.signals(project, q);
          return { status: 200, json: this.opportunities(project) };
        }
      }
    }
    throw new HttpError(404, { error: 'Not found' });
  }

  // --- keywords ------------------------------------------------------------------------------------

  private keyword(id: string): Keyword {
    if (!UUID.test(id)) throw badRequest('keywordId must be a UUID');
    const kw = this.catalogue.byId.get(id.toLowerCase());
    if (!kw) throw new HttpError(404, { error: 'Keyword not found' });
    return kw;
  }

  private searchKeywords(q: URLSearchParams): Res {
    const page = intParam(q, 'page', 1, 1, Number.MAX_SAFE_INTEGER);
    const limit = intParam(q, 'limit', 10, 1, 20);
    const hits = this.catalogue.search(q.get('q') ?? '');
    const data = hits.slice((page - 1) * limit, page * limit).map((k) => ({ id: k.id, name: k.name, type: k.type, synonyms: k.synonyms }));
    return { status: 200, json: { data, meta: { page, pageSize: limit } } };
  }

  private getKeyword(kw: Keyword, q: URLSearchParams): Res {
    const card = keywordCard(kw);
    const include = q.get('include');
    if (include !== null) {
      const sections = include
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (sections.length === 0) throw badRequest(`include must name at least one section: ${INCLUDE_SECTIONS.join(', ')}`);
      for (const section of sections) {
        if (!(INCLUDE_SECTIONS as readonly string[]).includes(section)) {
          throw badRequest(`Unknown include section "${section}"; allowed: ${INCLUDE_SECTIONS.join(', ')}`);
        }
        const relation = section as Relation;
        const activity: Activity | undefined = relation === 'sponsors' ? 'trials' : undefined;
        const total = relationTotal(kw, relation, activity);
        const n = Math.min(5, total);
        card[section] = {
          data: Array.from({ length: n }, (_, i) => relationItem(this.catalogue, kw, relation, activity, i)),
          total,
        };
      }
    }
    return { status: 200, json: card };
  }

  private relations(kw: Keyword, q: URLSearchParams): Res {
    const relation = q.get('relation');
    if (relation === null || relation === '') throw badRequest(`relation is required: one of ${RELATIONS.join(', ')}`);
    if (!(RELATIONS as readonly string[]).includes(relation)) throw badRequest(`relation must be one of ${RELATIONS.join(', ')}`);
    const activityParam = q.get('activity');
    let activity: Activity | undefined;
    if (activityParam !== null) {
      if (!(ACTIVITIES as readonly string[]).includes(activityParam)) throw badRequest(`activity must be one of ${ACTIVITIES.join(', ')}`);
      activity = activityParam as Activity;
    }
    if (relation === 'sponsors' && !activity)
      throw badRequest(`activity is required when relation is sponsors: one of ${ACTIVITIES.join(', ')}`);
    const limit = intParam(q, 'limit', 20, 1, 100);
    const offset = intParam(q, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
    const rel = relation as Relation;
    const effectiveActivity = rel === 'sponsors' ? activity : undefined;
    const total = relationTotal(kw, rel, effectiveActivity);
    const end = Math.min(total, offset + limit);
    const data = [];
    for (let i = offset; i < end; i++) data.push(relationItem(this.catalogue, kw, rel, effectiveActivity, i));
    const meta: Record<string, unknown> = { relation: rel, limit, offset, total };
    if (activity) meta.activity = activity;
    return { status: 200, json: { data, meta } };
  }

  // --- projects ------------------------------------------------------------------------------------

  private member(id: string, caller: Caller): { project: Project; role: Role } {
    if (!UUID.test(id)) throw badRequest('projectId must be a UUID');
    const project = this.projects.get(id.toLowerCase());
    const role = project?.members.get(caller.user);
    // An unknown project answers like one the caller does not belong to: existence is not revealed.
    if (!project || !role) throw new HttpError(403, { error: 'You are not a member of this project' });
    return { project, role };
  }

  private listProjects(caller: Caller): Res {
    const projects = [...this.projects.values()]
      .filter((p) => p.members.has(caller.user))
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((p) => ({
        id: p.id,
        name: p.name,
        created_at: new Date(p.createdAt).toISOString(),
        role: p.members.get(caller.user)!,
        brief: p.brief,
      }));
    return { status: 200, json: { projects } };
  }

  createProject(req: Req, caller: Caller): Res {
    const body = jsonBody(req);
    const name = typeof body.name === 'string' ? body.name.trim() : '';
    if (!name) throw badRequest('Missing name');
    if (name.length > 200) throw badRequest('name must be at most 200 characters');
    if (body.brief !== undefined && body.brief !== null && typeof body.brief !== 'string') throw badRequest('brief must be a string');
    const watchlist = body.watchlist_items ?? [];
    if (!Array.isArray(watchlist)) throw badRequest('watchlist_items must be an array of scope items');
    watchlist.forEach((item: unknown, i: number) => {
      const it = item as Record<string, unknown>;
      if (typeof item !== 'object' || item === null || Array.isArray(item)) throw badRequest(`watchlist_items[${i}] must be an object`);
      if (typeof it.entity_id !== 'string' || !it.entity_id) throw badRequest(`watchlist_items[${i}].entity_id must be a non-empty string`);
      if (typeof it.entity_type !== 'string' || !it.entity_type)
        throw badRequest(`watchlist_items[${i}].entity_type must be a non-empty string`);
      if (it.entity_name !== undefined && typeof it.entity_name !== 'string')
        throw badRequest(`watchlist_items[${i}].entity_name must be a string`);
      if (it.data !== undefined && (typeof it.data !== 'object' || it.data === null || Array.isArray(it.data))) {
        throw badRequest(`watchlist_items[${i}].data must be an object`);
      }
    });
    if (body.goals !== undefined && !Array.isArray(body.goals)) throw badRequest('goals must be an array of strings');
    if (body.primary_filter_type !== undefined && typeof body.primary_filter_type !== 'string')
      throw badRequest('primary_filter_type must be a string');
    const goals = ((body.goals as unknown[] | undefined) ?? []).filter((g): g is string => typeof g === 'string' && GOALS.includes(g));
    const operand = body.operand === '$and' || body.operand === '$or' ? body.operand : null;
    const now = this.ctx.clock.now();
    const scanError = this.ctx.faults.has('scan-error');
    const project = this.addProject({
      id: randomUUID(),
      name,
      createdAt: now,
      role: 'owner',
      brief: typeof body.brief === 'string' ? body.brief : null,
      watchlist,
      operand,
      goals: [...new Set(goals)],
      primaryFilterType: (body.primary_filter_type as string | undefined) ?? 'keyword',
      anchor: this.anchorFor(name, watchlist),
      scanStartsAt: scanError ? now + SCAN_RETRY_SECONDS * 1000 : now,
      setupDone: false,
    });
    void caller;
    const created: Record<string, unknown> = { id: project.id, name: project.name, role: 'owner', setup_url: this.setupUrl(project) };
    if (scanError)
      created.scan_error = 'The initial scan could not be started: the discovery service is busy. It will be retried automatically.';
    return { status: 201, json: created };
  }

  private setupUrl(project: Project): string {
    return `${this.ctx.base}/projects/${project.id}/overview?setup=1`;
  }

  private anchorFor(name: string, watchlist: unknown[]): Keyword {
    for (const item of watchlist) {
      const kw = this.catalogue.byId.get(String((item as Record<string, unknown>).entity_id).toLowerCase());
      if (kw) return kw;
    }
    const byName = this.catalogue.search(name.split(/\s+/)[0] ?? '')[0];
    if (byName) return byName;
    const targets = this.catalogue.ofType('target');
    return targets[name.length % targets.length]!;
  }

  private scanDone(p: Project): boolean {
    return this.ctx.clock.now() >= p.scanStartsAt + SCAN_SECONDS * 1000;
  }

  private signalsOf(p: Project): SignalSeed[] {
    p.signals ??= projectSignals(this.catalogue, p.id, p.anchor);
    return p.signals;
  }

  private runStatus(run: Run): 'pending' | 'running' | 'done' | 'failed' {
    const age = (this.ctx.clock.now() - run.createdAt) / 1000;
    if (age < RUN_PENDING_SECONDS) return 'pending';
    if (age < RUN_PENDING_SECONDS + RUN_RUNNING_SECONDS) return 'running';
    return run.fails ? 'failed' : 'done';
  }

  private runUpdatedAt(run: Run): string {
    const status = this.runStatus(run);
    const offset = status === 'pending' ? 0 : status === 'running' ? RUN_PENDING_SECONDS : RUN_PENDING_SECONDS + RUN_RUNNING_SECONDS;
    return this.ctx.clock.iso(run.createdAt + offset * 1000);
  }

  status(p: Project): Record<string, unknown> {
    const scanning = !this.scanDone(p);
    const statuses = p.runs.map((r) => this.runStatus(r));
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
        ? `Signals are ready (${this.signalsOf(p).length}). Review them and run analyses on the most promising.`
        : `Signals are ready (${this.signalsOf(p).length}). Scoring setup is not finished yet: ${this.setupUrl(p)}`;
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
        const status = this.runStatus(r);
        return {
          keyword_id: r.signalKeywordId,
          keyword_name: r.signalName,
          task_id: r.taskId,
          status,
          updated_at: this.runUpdatedAt(r),
          runs: [{ id: r.id, type: r.kind, status }],
        };
      }),
    };
  }

  private analysed(p: Project, s: SignalSeed): boolean {
    return p.runs.some((r) => r.signalKeywordId === s.signal_keyword_id && r.keywordId === s.keyword_id && this.runStatus(r) === 'done');
  }

  private inFlight(p: Project, s: SignalSeed): boolean {
    return p.runs.some(
      (r) =>
        r.signalKeywordId === s.signal_keyword_id && r.keywordId === s.keyword_id && ['pending', 'running'].includes(this.runStatus(r)),
    );
  }

  private ordered(p: Project, mode: AnalysisMode, type?: SignalType): SignalSeed[] {
    return this.signalsOf(p)
      .filter((s) => !type || s.type === type)
      .map((s) => ({ s, w: modeWeight(p.id, s.signal_keyword_id, mode, s.rank) }))
      .sort((a, b) => b.w - a.w)
      .map(({ s }) => s);
  }

  private signals(p: Project, q: URLSearchParams): Res {
    for (const param of STORAGE_PARAMS) {
      if (q.has(param)) throw badRequest(`Parameter "${param}" is not allowed`);
    }
    const type = q.get('type');
    if (type !== null && !(SIGNAL_TYPES as readonly string[]).includes(type))
      throw badRequest(`type must be one of ${SIGNAL_TYPES.join(', ')}`);
    const mode = q.get('analysis_mode') ?? 'most_promising';
    if (!(mode in ANALYSIS_MODES)) throw badRequest(`analysis_mode must be one of ${Object.keys(ANALYSIS_MODES).join(', ')}`);
    const limit = intParam(q, 'limit', 100, 1, 500);
    const all = this.scanDone(p) ? this.ordered(p, mode as AnalysisMode, (type ?? undefined) as SignalType | undefined) : [];
    const signals = all.slice(0, limit).map((s, i) => ({
      keyword_id: s.keyword_id,
      signal_keyword_id: s.signal_keyword_id,
      name: s.name,
      type: s.type,
      position: i + 1,
      rank: s.rank,
      analysed: this.analysed(p, s),
    }));
    return {
      status: 200,
      json: {
        analysis_mode: mode,
        analysis_mode_label: ANALYSIS_MODES[mode as AnalysisMode],
        filter: type ?? 'all',
        total: all.length,
        unanalysed_total: all.filter((s) => !this.analysed(p, s)).length,
        signals,
      },
    };
  }

  opportunities(p: Project): Record<string, unknown> {
    const byStatus: Record<string, number> = { pending: 0, running: 0, done: 0, failed: 0 };
    const items = p.runs.map((r) => {
      const status = this.runStatus(r);
      byStatus[status]!++;
      return {
        id: r.id,
        keyword_id: r.signalKeywordId,
        keyword_name: r.signalName,
        kind: r.kind,
        status,
        updated_at: this.runUpdatedAt(r),
      };
    });
    const keywords = p.runs
      .filter((r) => this.runStatus(r) === 'done')
      .map((r) => {
        const card = keywordCard(this.catalogue.byId.get(r.signalKeywordId)!);
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
          scored_at: this.runUpdatedAt(r),
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

  // --- analyses ------------------------------------------------------------------------------------

  private runAnalyses(p: Project, req: Req): Res {
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
      throw new HttpError(409, { error: `Scoring setup is missing for this project. Finish it at ${this.setupUrl(p)}` });
    }
    if (!this.scanDone(p)) {
      throw new HttpError(409, { error: "The project's scan has not finished yet; selections must match a finished scan." });
    }

    const chosen: SignalSeed[] = [];
    const skipped: Array<{ keyword_id: string; signal_keyword_id: string; reason: string }> = [];
    let assumption: string;
    let available: number;
    let limit: number;
    if (selections) {
      const signals = this.signalsOf(p);
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
        else if (this.inFlight(p, s)) skipped.push({ ...sel, reason: 'analysis already running' });
        else if (this.analysed(p, s) && !includeAnalysedTop) skipped.push({ ...sel, reason: 'already analysed' });
        else chosen.push(s);
        seen.add(key);
      }
      assumption = `Scoring ${chosen.length} selected signal${chosen.length === 1 ? '' : 's'}.`;
      available = signals.length;
      limit = selections.length;
    } else {
      const t = top!;
      const candidates = this.ordered(p, t.mode, t.type).filter((s) => !this.inFlight(p, s) && (t.includeAnalysed || !this.analysed(p, s)));
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

    if (this.ctx.faults.has('analyses-504')) {
      throw new HttpError(504, { error: 'The scoring service did not respond, and no run was recorded.' });
    }
    const now = this.ctx.clock.now();
    const mode = top?.mode ?? 'most_promising';
    const runs = chosen.map((s) => this.record(p, s, now, mode));
    this.ctx.stats.runs += runs.length;
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

  private record(p: Project, s: SignalSeed, at: number, mode: AnalysisMode): Run {
    const run: Run = {
      id: randomUUID(),
      taskId: randomUUID(),
      keywordId: s.keyword_id,
      signalKeywordId: s.signal_keyword_id,
      signalName: s.name,
      signalType: s.type,
      kind: 'scoring',
      mode,
      createdAt: at,
      // Deterministic failures, documented: a signal whose rank is a multiple of 7 fails.
      fails: s.rank % 7 === 0,
    };
    p.runs.push(run);
    return run;
  }

  // --- seed ----------------------------------------------------------------------------------------

  private addProject(p: Omit<Project, 'members' | 'runs'> & { role: Role | null }): Project {
    const { role, ...rest } = p;
    const project: Project = { ...rest, members: new Map(), runs: [] };
    if (role) project.members.set(USER.id, role);
    project.members.set('user-other', 'owner');
    this.projects.set(project.id, project);
    return project;
  }

  private seedProjects(): void {
    const day = 24 * 3600 * 1000;
    const now = this.ctx.clock.now();
    const kw = (name: string): Keyword => this.catalogue.keywords.find((k) => k.name === name)!;
    const seed = (name: string, role: Role | null, anchor: string, daysAgo: number, setupDone: boolean, brief: string | null): Project =>
      this.addProject({
        id: uuidFor(`project:${name}`),
        name,
        createdAt: now - daysAgo * day,
        role,
        brief,
        watchlist: [{ entity_id: kw(anchor).id, entity_type: kw(anchor).type, entity_name: anchor }],
        operand: '$or',
        goals: ['target'],
        primaryFilterType: 'keyword',
        anchor: kw(anchor),
        scanStartsAt: now - daysAgo * day,
        setupDone,
      });
    const onc = seed(
      'Oncology watchlist',
      'owner',
      'Non-small cell lung cancer',
      40,
      true,
      'Track emerging targets and modalities in lung cancer.',
    );
    seed('KRAS inhibitors', 'editor', 'KRAS', 21, true, 'Competitive landscape of KRAS-directed programmes.');
    seed('Fibrosis landscape', 'viewer', 'Idiopathic pulmonary fibrosis', 14, true, null);
    seed('Immunology pipeline', 'owner', 'Atopic dermatitis', 3, false, 'Scoring setup not finished yet.');
    seed('Competitor intel', null, 'EGFR', 30, true, 'Not shared with the demo user.');
    // Oncology watchlist has finished analyses (one of them failed: rank 7), so opportunities are non-empty.
    const picks = this.signalsOf(onc).filter((s) => s.rank <= 7 && s.rank !== 6);
    for (const s of picks) this.record(onc, s, now - 10 * day, 'most_promising');
  }
}

function requireScope(caller: Caller, scope: string): void {
  if (!caller.scopes.includes(scope)) throw new HttpError(403, { error: 'insufficient_scope', scope });
}

function badRequest(message: string): HttpError {
  return new HttpError(400, { error: message });
}

function methodNotAllowed(): HttpError {
  return new HttpError(405, { error: 'Method not allowed' });
}

function intParam(q: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = q.get(name);
  if (raw === null) return fallback;
  if (!/^-?\d+$/.test(raw.trim()))
    throw badRequest(`${name} must be an integer${max < Number.MAX_SAFE_INTEGER ? ` between ${min} and ${max}` : ` of at least ${min}`}`);
  const n = Number(raw);
  if (n < min || n > max)
    throw badRequest(`${name} must be ${max < Number.MAX_SAFE_INTEGER ? `between ${min} and ${max}` : `at least ${min}`}`);
  return n;
}

function jsonBody(req: Req): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(req.body.toString('utf8') || 'null');
  } catch {
    throw badRequest('Request body must be JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw badRequest('Request body must be a JSON object');
  return parsed as Record<string, unknown>;
}
