/**
 * The typed API client: one method per endpoint of shared/service-api.md. Every reply is parsed
 * with zod; every non-2xx status becomes a typed CliError carrying the spec's detail. Knows
 * nothing of terminals or auth.
 */
import type { z } from 'zod';
import type { Http, HttpRequest, HttpResponse } from '../http/types.js';
import { API_PREFIX } from '../http/api-path.js';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  NotSignedInError,
  ServiceUnavailableError,
  UnexpectedReplyError,
  UsageError,
} from '../errors.js';
import * as S from './schemas.js';

export type * from './schemas.js';

const STATUS_TEXT: Record<number, string> = {
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export class ApiClient {
  /** The service base URL (the API lives under it, at API_PREFIX). */
  readonly baseUrl: string;

  constructor(readonly http: Http) {
    // The Http port knows the API base; the setup page lives on the service base beside it.
    const apiBase = http.apiBase.replace(/\/+$/, '');
    this.baseUrl = apiBase.endsWith(API_PREFIX) ? apiBase.slice(0, -API_PREFIX.length) : apiBase;
  }

  setupUrl(projectId: string): string {
    return `${this.baseUrl}/projects/${projectId}/overview?setup=1`;
  }

  async searchKeywords(q: { q: string; page?: number; limit?: number }, signal?: AbortSignal): Promise<S.KeywordSearchPage> {
    return this.get('/keywords', S.KeywordSearchPage, { q: q.q, page: q.page, limit: q.limit }, signal);
  }

  /**
   * Every hit of a search, in order, until a short or empty page. The search reports no total, so
   * up to `window` pages are requested ahead while earlier ones print; pages fetched past the end
   * are discarded (at most `window - 1` extra requests).
   */
  async *iterateKeywordSearch(q: { q: string; limit?: number; window?: number }, signal?: AbortSignal): AsyncIterable<S.KeywordHit> {
    const limit = q.limit ?? 20;
    const window = Math.max(1, q.window ?? 3);
    const first = await this.searchKeywords({ q: q.q, page: 1, limit }, signal);
    yield* first.data;
    if (first.data.length < limit) return;
    let next = 2;
    const inflight: Array<Promise<S.KeywordSearchPage>> = [];
    const launch = (): void => {
      const page = next++;
      const p = this.searchKeywords({ q: q.q, page, limit }, signal);
      p.catch(() => undefined); // observed below, or discarded after the end
      inflight.push(p);
    };
    try {
      for (let i = 0; i < window; i++) launch();
      while (inflight.length > 0) {
        const res = await inflight.shift()!;
        yield* res.data;
        if (res.data.length < limit) return;
        launch();
      }
    } finally {
      await Promise.allSettled(inflight);
    }
  }

  async getKeyword(id: string, q: { include?: readonly string[] } = {}, signal?: AbortSignal): Promise<S.KeywordCard> {
    return this.get(
      `/keywords/${encodeURIComponent(id)}`,
      S.KeywordCard,
      { include: q.include?.length ? q.include.join(',') : undefined },
      signal,
    );
  }

  async listRelations(
    id: string,
    q: { relation: string; activity?: string | undefined; limit?: number | undefined; offset?: number | undefined },
    signal?: AbortSignal,
  ): Promise<S.RelationPage> {
    return this.get(`/keywords/${encodeURIComponent(id)}/relations`, S.RelationPage, { ...q }, signal);
  }

  /**
   * Every link of a relation, in order, each exactly once. After the first page tells the total,
   * the remaining pages are fetched `concurrency` at a time and yielded in order, so memory holds at
   * most a few pages whatever the total.
   */
  async *iterateRelations(
    id: string,
    q: { relation: string; activity?: string | undefined; pageSize?: number; concurrency?: number; offset?: number },
    signal?: AbortSignal,
  ): AsyncIterable<S.RelationItem> {
    const pageSize = q.pageSize ?? 100;
    const concurrency = Math.max(1, q.concurrency ?? 4);
    const start = q.offset ?? 0;
    const first = await this.listRelations(id, { relation: q.relation, activity: q.activity, limit: pageSize, offset: start }, signal);
    yield* first.data;
    const total = first.meta.total;
    let next = start + first.data.length;
    if (first.data.length === 0) return;
    const inflight: Array<Promise<S.RelationPage>> = [];
    const launch = (): void => {
      if (next >= total) return;
      const p = this.listRelations(id, { relation: q.relation, activity: q.activity, limit: pageSize, offset: next }, signal);
      p.catch(() => undefined); // observed when its turn comes, or discarded on an early stop
      inflight.push(p);
      next += pageSize;
    };
    try {
      for (let i = 0; i < concurrency; i++) launch();
      while (inflight.length > 0) {
        const page = await inflight.shift()!;
        launch();
        yield* page.data;
        if (page.data.length === 0) break;
      }
    } finally {
      // Let pages still in flight settle so an early stop or an error leaves nothing dangling.
      await Promise.allSettled(inflight);
    }
  }

  async listProjects(signal?: AbortSignal): Promise<S.ProjectList> {
    return this.get('/projects', S.ProjectList, {}, signal);
  }

  async createProject(body: S.CreateProjectBody, signal?: AbortSignal): Promise<S.CreatedProject> {
    return this.send({ method: 'POST', path: '/projects', body, signal }, S.CreatedProject, 201);
  }

  async getProjectStatus(projectId: string, signal?: AbortSignal): Promise<S.ProjectStatus> {
    return this.get(`/projects/${encodeURIComponent(projectId)}/status`, S.ProjectStatus, {}, signal);
  }

  async listSignals(
    projectId: string,
    q: { type?: string | undefined; analysis_mode?: string | undefined; limit?: number | undefined } = {},
    signal?: AbortSignal,
  ): Promise<S.SignalList> {
    return this.get(`/projects/${encodeURIComponent(projectId)}/signals`, S.SignalList, { ...q }, signal);
  }

  async getOpportunities(projectId: string, signal?: AbortSignal): Promise<S.OpportunityPayload> {
    return this.get(`/projects/${encodeURIComponent(projectId)}/opportunities`, S.OpportunityPayload, {}, signal);
  }

  /** POST: never retried automatically, so a timeout cannot record the same run twice. */
  async runAnalyses(projectId: string, body: S.RunAnalysesBody, signal?: AbortSignal): Promise<S.AnalysesResult> {
    return this.send(
      { method: 'POST', path: `/projects/${encodeURIComponent(projectId)}/analyses`, body, idempotent: false, signal },
      S.AnalysesResult,
      202,
      { projectId },
    );
  }

  /** A raw call for `rsi api`: the response whatever its status (network errors still throw). */
  async raw(req: HttpRequest): Promise<HttpResponse> {
    return this.http.request(req);
  }

  private get<T extends z.ZodType>(path: string, schema: T, query: HttpRequest['query'], signal?: AbortSignal): Promise<z.infer<T>> {
    return this.send({ method: 'GET', path, query, signal }, schema, 200);
  }

  private async send<T extends z.ZodType>(
    req: HttpRequest,
    schema: T,
    expected: number,
    about: { projectId?: string } = {},
  ): Promise<z.infer<T>> {
    const res = await this.http.request(req);
    const what = `${req.method} ${req.path}`;
    if (res.status < 200 || res.status >= 300) throw this.errorFor(res, what, about);
    if (!res.isJson) {
      throw new UnexpectedReplyError(`unexpected reply from ${what}: ${res.status} with a ${res.text ? 'non-JSON' : 'empty'} body`);
    }
    void expected;
    const parsed = schema.safeParse(res.json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const path = issue.path.length ? issue.path.join('.') : '(body)';
      throw new UnexpectedReplyError(`unexpected reply from ${what}: ${path}: ${issue.message}`, {
        hint: 'the service answered something its specification does not allow; run with --debug to see it',
      });
    }
    return parsed.data;
  }

  /** Maps an HTTP error status to the contract's typed errors. */
  errorFor(res: HttpResponse, what: string, about: { projectId?: string } = {}): Error {
    const body = (res.isJson && typeof res.json === 'object' && res.json !== null ? res.json : {}) as { error?: unknown; scope?: unknown };
    const text = typeof body.error === 'string' ? oneLine(body.error) : undefined;
    switch (res.status) {
      case 400:
        return new UsageError(`the service rejected the request: ${text ?? 'bad request'}`);
      case 401:
        return new NotSignedInError(`not signed in, or the sign-in is no longer valid (401 from ${what})`);
      case 403:
        if (text === 'insufficient_scope' && typeof body.scope === 'string') {
          return new ForbiddenError(`missing scope ${body.scope} for ${what}`, body.scope, {
            hint: `run \`rsi login --scope ${body.scope}\` (with the other scopes you need)`,
          });
        }
        return new ForbiddenError(`forbidden: ${text ?? `403 from ${what}`}`);
      case 404:
        return new NotFoundError(text ?? `not found (${what})`);
      case 409: {
        const projectId = about.projectId ?? /\/projects\/([^/?]+)/.exec(what)?.[1];
        const setupUrl = projectId ? this.setupUrl(decodeURIComponent(projectId)) : undefined;
        const setupMissing = /setup/i.test(text ?? '');
        return new ConflictError(text ?? `conflict (${what})`, setupMissing ? setupUrl : undefined, {
          hint: setupMissing
            ? setupUrl
              ? `finish scoring setup at ${setupUrl}`
              : "finish the project's scoring setup in the browser"
            : "list the project's signals (`rsi signals`) and select from the finished scan",
        });
      }
      default: {
        if (res.status === 504 && what.startsWith('POST') && what.endsWith('/analyses')) {
          return new ServiceUnavailableError('The scoring service did not respond, and no run was recorded.', 504, {
            hint: 'running the same command again is safe',
          });
        }
        const status = `${res.status}${STATUS_TEXT[res.status] ? ` (${STATUS_TEXT[res.status]})` : ''}`;
        if (res.status === 429 || res.status >= 500) {
          const detail = res.isJson ? (text ? `: ${text}` : '') : ' with a non-JSON page';
          return new ServiceUnavailableError(`the service answered ${status}${detail} (${what})`, res.status, {
            hint: 'the service or a proxy in front of it is having trouble; try again later',
          });
        }
        return new UnexpectedReplyError(`unexpected reply from ${what}: ${status}${text ? `: ${text}` : ''}`);
      }
    }
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 500);
}
