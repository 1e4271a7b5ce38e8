/**
 * The nine API routes of shared/service-api.md: routing, tokens, scopes and roles here; the work is
 * done by one module per resource — keywords.ts, projects.ts (store and lifecycle), progress.ts
 * (status, signals, opportunities) and analyses.ts.
 */
import { HttpError, type Req, type Res } from './http.js';
import type { SandboxContext } from './context.js';
import type { Caller, OAuthServer } from './oauth.js';
import { Catalogue } from './data.js';
import { KeywordRoutes } from './keywords.js';
import { Projects, type Project } from './projects.js';
import { opportunities, signals, status } from './progress.js';
import { runAnalyses } from './analyses.js';
import { methodNotAllowed, requireScope } from './params.js';

export class ApiService {
  readonly catalogue = new Catalogue();
  readonly projects: Projects;
  private readonly keywords: KeywordRoutes;

  constructor(
    private readonly ctx: SandboxContext,
    private readonly oauth: OAuthServer,
  ) {
    this.projects = new Projects(ctx, this.catalogue);
    this.keywords = new KeywordRoutes(ctx, this.catalogue);
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

  /** POST /projects, also callable by other front doors of the sandbox. */
  createProject(req: Req, caller: Caller): Res {
    return this.projects.create(req, caller);
  }

  opportunities(project: Project): Record<string, unknown> {
    return opportunities(this.projects, project);
  }

  status(project: Project): Record<string, unknown> {
    return status(this.projects, project);
  }

  private route(req: Req): Res {
    const { method } = req;
    const parts = req.path.split('/').slice(3); // ['', 'api', 'v1', ...]
    const caller = this.oauth.authenticate(req.headers.authorization);
    const q = req.url.searchParams;

    if (parts[0] === 'keywords') {
      if (method !== 'GET') throw methodNotAllowed();
      requireScope(caller, 'service:read');
      if (parts.length === 1) return this.keywords.search(q);
      const kw = this.keywords.keyword(parts[1]!);
      if (parts.length === 2) return this.keywords.card(kw, q);
      if (parts.length === 3 && parts[2] === 'relations') return this.keywords.relations(kw, q);
    }
    if (parts[0] === 'projects') {
      if (parts.length === 1) {
        if (method === 'GET') {
          requireScope(caller, 'service:read');
          return this.projects.list(caller);
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
          const { project, role } = this.projects.member(parts[1]!, caller);
          if (role === 'viewer') throw new HttpError(403, { error: 'Only editors and owners of the project can run analyses' });
          return runAnalyses(this.ctx, this.projects, project, req);
        }
        if (sub === 'status' || sub === 'signals' || sub === 'opportunities') {
          if (method !== 'GET') throw methodNotAllowed();
          requireScope(caller, 'service:read');
          const { project } = this.projects.member(parts[1]!, caller);
          if (sub === 'status') return { status: 200, json: this.status(project) };
          if (sub === 'signals') return signals(this.projects, project, q);
          return { status: 200, json: this.opportunities(project) };
        }
      }
    }
    throw new HttpError(404, { error: 'Not found' });
  }
}
