/** The keyword routes: search, the keyword card with its include sections, and relations. */
import { HttpError, type Res } from './http.js';
import type { SandboxContext } from './context.js';
import {
  ACTIVITIES,
  RELATIONS,
  keywordCard,
  relationItem,
  relationTotal,
  type Activity,
  type Catalogue,
  type Keyword,
  type Relation,
} from './data.js';
import { SHORT_RELATIONS_PAGE, SHORT_SEARCH_PAGE, wrongTotal } from './faults.js';
import { UUID, badRequest, intParam } from './params.js';

const INCLUDE_SECTIONS = ['indications', 'assets', 'pipeline_targets', 'sponsors'] as const;

export class KeywordRoutes {
  constructor(
    private readonly ctx: SandboxContext,
    private readonly catalogue: Catalogue,
  ) {}

  keyword(id: string): Keyword {
    if (!UUID.test(id)) throw badRequest('keywordId must be a UUID');
    const kw = this.catalogue.byId.get(id.toLowerCase());
    if (!kw) throw new HttpError(404, { error: 'Keyword not found' });
    return kw;
  }

  search(q: URLSearchParams): Res {
    const page = intParam(q, 'page', 1, 1, Number.MAX_SAFE_INTEGER);
    const asked = intParam(q, 'limit', 10, 1, 20);
    // short-pages: the server uses a smaller page size than asked and says so in meta.pageSize.
    const limit = this.ctx.faults.has('short-pages') ? Math.min(asked, SHORT_SEARCH_PAGE) : asked;
    const hits = this.catalogue.search(q.get('q') ?? '');
    const data = hits.slice((page - 1) * limit, page * limit).map((k) => ({ id: k.id, name: k.name, type: k.type, synonyms: k.synonyms }));
    return { status: 200, json: { data, meta: { page, pageSize: limit } } };
  }

  card(kw: Keyword, q: URLSearchParams): Res {
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
          total: this.ctx.faults.has('wrong-total') ? wrongTotal(total, kw.type) : total,
        };
      }
    }
    return { status: 200, json: card };
  }

  relations(kw: Keyword, q: URLSearchParams): Res {
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
    const asked = intParam(q, 'limit', 20, 1, 100);
    // short-pages: fewer rows than asked; meta.limit reports the page size actually used.
    const limit = this.ctx.faults.has('short-pages') ? Math.min(asked, SHORT_RELATIONS_PAGE) : asked;
    const offset = intParam(q, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
    const rel = relation as Relation;
    const effectiveActivity = rel === 'sponsors' ? activity : undefined;
    const total = relationTotal(kw, rel, effectiveActivity);
    const end = Math.min(total, offset + limit);
    const data = [];
    for (let i = offset; i < end; i++) data.push(relationItem(this.catalogue, kw, rel, effectiveActivity, i));
    const shownTotal = this.ctx.faults.has('wrong-total') ? wrongTotal(total, kw.type) : total;
    const meta: Record<string, unknown> = { relation: rel, limit, offset, total: shownTotal };
    if (activity) meta.activity = activity;
    return { status: 200, json: { data, meta } };
  }
}
