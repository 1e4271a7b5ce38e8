/**
 * The typed API client: one method per endpoint of shared/service-api.md. Every reply is parsed
 * with zod; every non-2xx status becomes a typed CliError carrying the spec's detail. Knows
 * nothing of terminals or auth.
 */
import type * as z from 'zod/mini';
import type { Http, HttpRequest, HttpResponse } from '../http/types.js';
import { API_PREFIX } from '../http/api-path.js';
import { unfollowedRedirect } from '../http/redirect.js';
import {
  ConflictError,
  type ConflictFacts,
  ForbiddenError,
  NotFoundError,
  NotSignedInError,
  ServiceUnavailableError,
  UnexpectedReplyError,
  UsageError,
} from '../errors.js';
import * as S from './schemas.js';
import { isUuid } from './ids.js';
import type { InFlight } from './window.js';
import { carryLiterals } from '../io/json.js';
import { notJsonError } from './not-json.js';
import { pageCapError, readAhead, type RequestOptions, requestOf, type WalkEnd } from './paging.js';
import { KEYWORD_SEARCH, type PagedEndpoint, RELATIONS, type WalkOptions } from './walks.js';
import { placeholder, suggest } from '../io/text.js';

const STATUS_TEXT: Record<number, string> = {
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** `iterateKeywordSearch`: the query, the page size to ask for, and how to report a doubtful total. */
export interface SearchWalk {
  q: string;
  limit?: number;
  /** Pages requested ahead while earlier ones print: fixed, or adaptive (default 3, fixed). */
  window?: InFlight;
  /** The page cap (paging.ts `maxPages`); default `MAX_PAGES.default`. */
  maxPages?: number;
  onWarning?: (message: string) => void;
  onPage?: WalkOptions['onPage'];
}

/** `iterateRelations`: the relation, the page size to ask for, and how to report a doubtful total. */
export interface RelationsWalk {
  relation: string;
  activity?: string | undefined;
  pageSize?: number;
  /** Pages in flight at once: fixed, or adaptive (default 4, fixed). */
  concurrency?: InFlight;
  offset?: number | undefined;
  /** The page cap (paging.ts `maxPages`); default `MAX_PAGES.default`. */
  maxPages?: number;
  onWarning?: (message: string) => void;
  onPage?: WalkOptions['onPage'];
}

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

  async searchKeywords(
    q: { q: string; page?: number; limit?: number },
    signal?: AbortSignal | RequestOptions,
  ): Promise<S.KeywordSearchPage> {
    return this.get('/keywords', S.KeywordSearchPage(), { q: q.q, page: q.page, limit: q.limit }, requestOf(signal));
  }

  /**
   * Every hit of a search, in order, each once: the generic walk over numbered pages (walks.ts
   * `KEYWORD_SEARCH`). Page N holds whatever the server's own page size makes it hold; only an
   * empty page ends the walk (a short page mid-walk was once taken for the end, and lost 7 of 23
   * hits). A `meta.total` that disagrees with the data is reported through `onWarning`.
   */
  iterateKeywordSearch(q: SearchWalk, signal?: AbortSignal): AsyncIterable<S.KeywordHit> {
    return this.walk(KEYWORD_SEARCH, q, q, signal);
  }

  async getKeyword(id: string, q: { include?: readonly string[] } = {}, signal?: AbortSignal | RequestOptions): Promise<S.KeywordCard> {
    return this.get(
      `/keywords/${pathId(id)}`,
      S.KeywordCard(),
      { include: q.include?.length ? q.include.join(',') : undefined },
      requestOf(signal),
    );
  }

  async listRelations(
    id: string,
    q: { relation: string; activity?: string | undefined; limit?: number | undefined; offset?: number | undefined },
    signal?: AbortSignal | RequestOptions,
  ): Promise<S.RelationPage> {
    return this.get(`/keywords/${pathId(id)}/relations`, S.RelationPage(), { ...q }, requestOf(signal));
  }

  /**
   * Every link of a relation from `offset` on, in order, each exactly once, whatever page size the
   * server actually uses: the generic walk over offsets (walks.ts `RELATIONS`), which steps by the
   * rows received and ends only at an empty page.
   */
  iterateRelations(id: string, q: RelationsWalk, signal?: AbortSignal | RequestOptions): AsyncIterable<S.RelationItem> {
    return this.walk(RELATIONS, { ...q, id: pathId(id) }, { ...q, window: q.concurrency }, signal);
  }

  /**
   * The one walk over any paged endpoint (walks.ts): every row from its start, in order, each once,
   * with pages read ahead (paging.ts `readAhead`), repeated pages and the page cap as errors, and a
   * total that disagrees with the rows reported through `how.onWarning`. The walk's own generator
   * is returned, not wrapped in another: each layer of async generators costs every row a promise
   * (about 3 ms a layer for 5,400 rows).
   */
  walk<Q, R, T>(
    paged: PagedEndpoint<Q, R, T>,
    q: Q,
    how: WalkOptions = {},
    signal?: AbortSignal | RequestOptions,
  ): AsyncGenerator<T, WalkEnd> {
    const path = paged.path(q);
    const start = paged.start(q);
    const request = requestOf(signal);
    return readAhead<T>({
      by: paged.by,
      start,
      window: how.window ?? paged.window,
      signal: request.signal,
      onRetry: request.onRetry,
      fetch: async (position, options) => {
        const page = paged.page(await this.get(path, paged.reply(), paged.query(q, position), options));
        how.onPage?.(page.rows.length, page.total);
        return page;
      },
      repeated: (position, before) => repeatedPage(...paged.positions(path, position, before)),
      maxPages: how.maxPages,
      capped: (cap) => pageCapError(`GET ${path}`, cap),
      onEnd: (end) => {
        const warning = paged.disagreement(q, end, start);
        if (warning !== undefined) how.onWarning?.(warning);
      },
    });
  }

  async listProjects(signal?: AbortSignal): Promise<S.ProjectList> {
    return this.get('/projects', S.ProjectList(), {}, { signal });
  }

  /** POST: sent once (src/http/resend.ts); `onSent` hears when it may have reached the service (src/ops/writes.ts reads back). */
  async createProject(body: S.CreateProjectBody, signal?: AbortSignal, onSent?: () => void): Promise<S.CreatedProject> {
    return this.send({ method: 'POST', path: '/projects', body, signal, ...(onSent ? { onSent } : {}) }, S.CreatedProject());
  }

  async getProjectStatus(projectId: string, signal?: AbortSignal): Promise<S.ProjectStatus> {
    return this.get(`/projects/${pathId(projectId)}/status`, S.ProjectStatus(), {}, { signal });
  }

  async listSignals(
    projectId: string,
    q: { type?: string | undefined; analysis_mode?: string | undefined; limit?: number | undefined } = {},
    signal?: AbortSignal,
  ): Promise<S.SignalList> {
    return this.get(`/projects/${pathId(projectId)}/signals`, S.SignalList(), { ...q }, { signal });
  }

  async getOpportunities(projectId: string, signal?: AbortSignal): Promise<S.OpportunityPayload> {
    return this.get(`/projects/${pathId(projectId)}/opportunities`, S.OpportunityPayload(), {}, { signal });
  }

  /** POST: sent once (src/http/resend.ts), so a lost reply cannot record the same run twice; `onSent` as for createProject. */
  async runAnalyses(projectId: string, body: S.RunAnalysesBody, signal?: AbortSignal, onSent?: () => void): Promise<S.AnalysesResult> {
    return this.send(
      { method: 'POST', path: `/projects/${pathId(projectId)}/analyses`, body, signal, ...(onSent ? { onSent } : {}) },
      S.AnalysesResult(),
      { projectId },
    );
  }

  /** A raw call for `rsi api`: the response whatever its status (network errors still throw). */
  async raw(req: HttpRequest): Promise<HttpResponse> {
    return this.http.request(req);
  }

  private get<T extends z.ZodMiniType>(
    path: string,
    schema: T,
    query: HttpRequest['query'],
    options: RequestOptions = {},
  ): Promise<z.infer<T>> {
    return this.send({ method: 'GET', path, query, signal: options.signal, onRetry: options.onRetry }, schema);
  }

  /** Any 2xx is success: the spec's 200/201/202 say nothing a caller acts on. */
  private async send<T extends z.ZodMiniType>(req: HttpRequest, schema: T, about: { projectId?: string } = {}): Promise<z.infer<T>> {
    const res = await this.http.request(req);
    const what = `${req.method} ${req.path}`;
    if (res.status < 200 || res.status >= 300) throw this.errorFor(res, what, about);
    if (!res.isJson) throw notJsonError(res, what);
    const parsed = schema.safeParse(res.json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const path = issue.path.length ? issue.path.join('.') : '(body)';
      throw new UnexpectedReplyError(`unexpected reply from ${what}: ${path}: ${issue.message}`, {
        hint: 'the service answered something its specification does not allow; run with --debug to see it',
      });
    }
    // The schema rebuilt the reply's objects: its number literals go with them (`1.10` stays `1.10`).
    carryLiterals(res.json, parsed.data);
    return parsed.data;
  }

  /** Maps an HTTP error status to the contract's typed errors. */
  errorFor(res: HttpResponse, what: string, about: { projectId?: string } = {}): Error {
    const body = (res.isJson && typeof res.json === 'object' && res.json !== null ? res.json : {}) as { error?: unknown; scope?: unknown };
    // A blank error text says nothing: the status's own words are used instead of an empty message.
    const text = typeof body.error === 'string' ? oneLine(body.error) || undefined : undefined;
    switch (res.status) {
      case 400:
        return new UsageError(`the service rejected the request: ${text ?? 'bad request'}`);
      case 401:
        return new NotSignedInError(`not signed in, or the sign-in is no longer valid (401 from ${what})`);
      case 403:
        if (text === 'insufficient_scope' && typeof body.scope === 'string') {
          return new ForbiddenError(`missing scope ${body.scope} for ${what}`, body.scope, {
            hint: `run ${suggest(['rsi', 'login', '--scope', body.scope.split(/\s+/).filter(Boolean).join(',')])} (with the other scopes you need)`,
          });
        }
        {
          // The service checks membership before it looks the project up (service-api.md, order of
          // checks): a 403 on a project is also what an id of no project gets.
          const projectId = about.projectId ?? /\/projects\/([^/?]+)/.exec(what)?.[1];
          if (projectId === undefined) return new ForbiddenError(`forbidden: ${text ?? `403 from ${what}`}`);
          return new ForbiddenError(
            `forbidden: ${text ?? `403 from ${what}`} (the project ${decodeURIComponent(projectId)} may not exist, or you may not be a member of it)`,
            undefined,
            { hint: `the projects you belong to: ${suggest(['rsi', 'projects', 'list'])}` },
          );
        }
      case 404:
        return new NotFoundError(text ?? `not found (${what})`);
      case 409: {
        const projectId = about.projectId ?? /\/projects\/([^/?]+)/.exec(what)?.[1];
        const id = projectId ? decodeURIComponent(projectId) : undefined;
        // The spec names two causes of a 409; the text says which only when it mentions one.
        const reason = /setup/i.test(text ?? '') ? 'setup' : /scan|selection|signal/i.test(text ?? '') ? 'selection' : 'unclear';
        return conflictError({ text, what, reason, project: id ? { id } : undefined, setupUrl: id ? this.setupUrl(id) : undefined });
      }
      default: {
        if (res.status === 504 && what.startsWith('POST') && what.endsWith('/analyses')) {
          return new ServiceUnavailableError('the scoring service did not respond, and no run was recorded', 504, {
            hint: 'running the same command again is safe',
          });
        }
        if (res.status >= 300 && res.status < 400) return unfollowedRedirect(what, res, res.redirects?.length ?? 0);
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

/**
 * A 409 as the person reads it, made from its facts alone: the hint names the project as they gave
 * it once that is known (`facts.project.name`, which src/ops sets), else by id. The one place a
 * conflict's hint is written: no layer edits another's text.
 */
export function conflictError(facts: ConflictFacts): ConflictError {
  const { text, what, reason, setupUrl } = facts;
  const project = facts.project ? (facts.project.name ?? facts.project.id) : undefined;
  // The URL once: when the service's own text names it, the hint points there instead of repeating it.
  const setup =
    setupUrl && !text?.includes(setupUrl)
      ? `finish scoring setup at ${setupUrl}`
      : `finish the project's scoring setup in the browser${setupUrl ? ' (at the URL above)' : ''}`;
  const signals = `check the finished scan's signals with ${suggest(['rsi', 'signals', project ?? placeholder('project')])}`;
  return new ConflictError(
    text ?? `conflict (${what})`,
    reason === 'setup' ? setupUrl : undefined,
    {
      hint:
        reason === 'setup'
          ? setup
          : reason === 'selection'
            ? `the selection must match a finished scan: ${signals}`
            : `either scoring setup is missing (${setup}) or the selection does not match a finished scan (${signals})`,
    },
    facts,
  );
}

/** A server that ignores the page or offset asked for would make `--all` loop forever: stop instead. */
function repeatedPage(where: string, before: string): UnexpectedReplyError {
  return new UnexpectedReplyError(`the service sent the same rows for ${where} as for ${before}; stopped so the walk cannot loop`, {
    hint: 'the service seems to ignore the paging parameters; fetch single pages with --page/--offset instead',
  });
}

/**
 * A path segment for an id. The spec's path ids are UUIDs; refusing anything else here is the last
 * fence before the URL, so `.`/`..` (which URL parsing would resolve) or a slash never reach one.
 */
function pathId(id: string): string {
  if (!isUuid(id)) throw new UsageError(`${JSON.stringify(id)} is not a UUID, so it cannot name a keyword or project in a request`);
  return id;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 500);
}
