/**
 * Projects: the store, membership, listing and creation, and the lifecycle over (scaled) time that
 * status, signals, opportunities and analyses read: scan → signals → setup → runs.
 */
import { HttpError, type Req, type Res } from './http.js';
import type { SandboxContext } from './context.js';
import { USER, type Caller } from './oauth.js';
import {
  projectSignals,
  modeWeight,
  uuidFor,
  type AnalysisMode,
  type Catalogue,
  type Keyword,
  type SignalSeed,
  type SignalType,
} from './data.js';
import { UUID, badRequest, jsonBody } from './params.js';

/** Sandbox seconds a new project's initial scan takes. */
export const SCAN_SECONDS = 30;
/** Sandbox seconds a run stays pending, then running. */
export const RUN_PENDING_SECONDS = 5;
export const RUN_RUNNING_SECONDS = 20;
/** A scan that failed to start is retried by the service after this many sandbox seconds. */
export const SCAN_RETRY_SECONDS = 10;

const GOALS = ['target', 'indication', 'modality'];
export type Role = 'owner' | 'editor' | 'viewer';
export type RunStatus = 'pending' | 'running' | 'done' | 'failed';

export interface Run {
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

export class Projects {
  private readonly byId = new Map<string, Project>();

  constructor(
    private readonly ctx: SandboxContext,
    readonly catalogue: Catalogue,
  ) {
    this.seed();
  }

  get(id: string): Project | undefined {
    return this.byId.get(id);
  }

  values(): IterableIterator<Project> {
    return this.byId.values();
  }

  /** The project and the caller's role; an unknown project answers like one the caller is not in. */
  member(id: string, caller: Caller): { project: Project; role: Role } {
    if (!UUID.test(id)) throw badRequest('projectId must be a UUID');
    const project = this.byId.get(id.toLowerCase());
    const role = project?.members.get(caller.user);
    // Existence is not revealed.
    if (!project || !role) throw new HttpError(403, { error: 'You are not a member of this project' });
    return { project, role };
  }

  list(caller: Caller): Res {
    const projects = [...this.byId.values()]
      .filter((p) => p.members.has(caller.user))
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((p) => ({
        id: p.id,
        name: p.name,
        created_at: this.ctx.clock.iso(p.createdAt),
        role: p.members.get(caller.user)!,
        brief: p.brief,
      }));
    return { status: 200, json: { projects } };
  }

  create(req: Req, caller: Caller): Res {
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
    const project = this.add({
      id: this.ctx.newId(),
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

  setupUrl(project: Project): string {
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

  // --- lifecycle -----------------------------------------------------------------------------------

  scanDone(p: Project): boolean {
    return this.ctx.clock.now() >= p.scanStartsAt + SCAN_SECONDS * 1000;
  }

  signalsOf(p: Project): SignalSeed[] {
    p.signals ??= projectSignals(this.catalogue, p.id, p.anchor);
    return p.signals;
  }

  runStatus(run: Run): RunStatus {
    const age = (this.ctx.clock.now() - run.createdAt) / 1000;
    if (age < RUN_PENDING_SECONDS) return 'pending';
    if (age < RUN_PENDING_SECONDS + RUN_RUNNING_SECONDS) return 'running';
    return run.fails ? 'failed' : 'done';
  }

  runUpdatedAt(run: Run): string {
    const status = this.runStatus(run);
    const offset = status === 'pending' ? 0 : status === 'running' ? RUN_PENDING_SECONDS : RUN_PENDING_SECONDS + RUN_RUNNING_SECONDS;
    return this.ctx.clock.iso(run.createdAt + offset * 1000);
  }

  analysed(p: Project, s: SignalSeed): boolean {
    return p.runs.some((r) => r.signalKeywordId === s.signal_keyword_id && r.keywordId === s.keyword_id && this.runStatus(r) === 'done');
  }

  inFlight(p: Project, s: SignalSeed): boolean {
    return p.runs.some(
      (r) =>
        r.signalKeywordId === s.signal_keyword_id && r.keywordId === s.keyword_id && ['pending', 'running'].includes(this.runStatus(r)),
    );
  }

  /** The project's signals of one type (or all), in the order of an analysis mode. */
  ordered(p: Project, mode: AnalysisMode, type?: SignalType): SignalSeed[] {
    return this.signalsOf(p)
      .filter((s) => !type || s.type === type)
      .map((s) => ({ s, w: modeWeight(p.id, s.signal_keyword_id, mode, s.rank) }))
      .sort((a, b) => b.w - a.w)
      .map(({ s }) => s);
  }

  record(p: Project, s: SignalSeed, at: number, mode: AnalysisMode): Run {
    const run: Run = {
      id: this.ctx.newId(),
      taskId: this.ctx.newId(),
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

  private add(p: Omit<Project, 'members' | 'runs'> & { role: Role | null }): Project {
    const { role, ...rest } = p;
    const project: Project = { ...rest, members: new Map(), runs: [] };
    if (role) project.members.set(USER.id, role);
    project.members.set('user-other', 'owner');
    this.byId.set(project.id, project);
    return project;
  }

  private seed(): void {
    const day = 24 * 3600 * 1000;
    const now = this.ctx.clock.now();
    const kw = (name: string): Keyword => this.catalogue.keywords.find((k) => k.name === name)!;
    const seed = (name: string, role: Role | null, anchor: string, daysAgo: number, setupDone: boolean, brief: string | null): Project =>
      this.add({
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
