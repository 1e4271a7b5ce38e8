/**
 * zod schemas for every body in shared/service-api.md, and the wire types derived from them (the
 * only place they are declared). Replies are parsed with `z.looseObject`, so fields the spec does
 * not list are kept (and printed by `--json`), while a reply that breaks the spec becomes a clear
 * error naming the field.
 *
 * Tolerance follows the spec to the letter: a member is required only where the spec's table says
 * "yes" (or "all required"), nullable only where it says "or null" (or "nullable"); every other
 * member is optional. A table without a Required column (KeywordScore, AnalysesResult) therefore
 * requires nothing. Enumerated values are checked where the spec lists the allowed values, because
 * the commands branch on them (the watch on `next`, exit 10 on an analysis `status`).
 */
import * as z from 'zod/mini';
import { en } from 'zod/locales';
import { ANALYSIS_MODES, OPERANDS, TOP_TYPES } from './enums.js';
import { UUID_RE } from './ids.js';
import { LIMITS } from './limits.js';

// zod/mini, not zod: its schemas carry no methods, so building one and parsing with it compile a
// fraction of the code (one GET: ~5 ms of CPU less on Node 24, docs/performance.md round 3). mini
// loads no messages by default; these are zod's English ones, as the full build has.
z.config(en());

/**
 * Each schema is built on first use and then kept: building all of them costs several ms at every
 * start, and a command needs one or two (docs/performance.md, round 3). Call `KeywordCard()` for
 * the schema; the type of the same name is what it parses to.
 */
function lazy<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}
const nullableString = lazy(() => z.nullable(z.string()));

export const PageMeta = lazy(() => z.looseObject({ page: z.int(), pageSize: z.int() }));
export const KeywordHit = lazy(() => z.looseObject({ id: z.string(), name: z.string(), type: z.string(), synonyms: z.array(z.string()) }));
export const KeywordSearchPage = lazy(() => z.looseObject({ data: z.array(KeywordHit()), meta: PageMeta() }));

// "KeywordScore (nullable object)": no member is marked required.
export const KeywordScore = lazy(() =>
  z.nullable(
    z.looseObject({
      score: z.optional(z.number()),
      raw: z.optional(z.nullable(z.number())),
      label: z.optional(z.string()),
      description: z.optional(z.string()),
    }),
  ),
);
const nullableInt = lazy(() => z.nullable(z.int()));
export const KeywordCard = lazy(() =>
  z.looseObject({
    id: z.string(),
    name: z.string(),
    type: nullableString(),
    description: nullableString(),
    synonyms: z.array(z.string()),
    // The object is required; its members are described ("each integer or null"), not marked required.
    activity: z.looseObject({
      papers: z.optional(nullableInt()),
      patents: z.optional(nullableInt()),
      trials: z.optional(nullableInt()),
      assets: z.optional(nullableInt()),
    }),
    scores: z.looseObject({
      as_of: z.optional(nullableString()),
      composite: z.optional(KeywordScore()),
      momentum: z.optional(KeywordScore()),
      maturity: z.optional(KeywordScore()),
      competition: z.optional(KeywordScore()),
      risk: z.optional(KeywordScore()),
      translation: z.optional(KeywordScore()),
    }),
  }),
);

export const RelationItem = lazy(() =>
  z.looseObject({
    id: z.string(),
    name: z.string(),
    count: z.optional(z.int()),
    stage: z.optional(nullableString()),
  }),
);
export const RelationPage = lazy(() =>
  z.looseObject({
    data: z.array(RelationItem()),
    meta: z.looseObject({
      relation: z.string(),
      activity: z.optional(z.string()),
      limit: z.int(),
      offset: z.int(),
      total: z.int(),
    }),
  }),
);

export const Project = lazy(() =>
  z.looseObject({
    id: z.string(),
    name: z.string(),
    created_at: z.optional(z.string()),
    role: z.enum(['owner', 'editor', 'viewer']),
    brief: z.optional(nullableString()),
  }),
);
export const ProjectList = lazy(() => z.looseObject({ projects: z.array(Project()) }));

export const ScopeItem = lazy(() =>
  z.looseObject({
    entity_id: z.string().check(z.minLength(1)),
    entity_type: z.string().check(z.minLength(1)),
    entity_name: z.optional(z.string()),
    data: z.optional(z.record(z.string(), z.unknown())),
  }),
);
export const CreateProjectBody = lazy(() =>
  z.object({
    name: z.string(),
    brief: z.optional(z.string()),
    watchlist_items: z.optional(z.array(ScopeItem())),
    operand: z.optional(z.enum(OPERANDS)),
    goals: z.optional(z.array(z.string())),
    primary_filter_type: z.optional(z.string()),
  }),
);
/** The spec's ids are UUIDs: an id that is not one never reaches a path or a suggested command. */
const Uuid = lazy(() => z.string().check(z.regex(UUID_RE, 'not a UUID')));
export const CreatedProject = lazy(() =>
  z.looseObject({
    id: Uuid(),
    name: z.string(),
    role: z.string(),
    setup_url: z.string(),
    scan_error: z.optional(z.string()),
  }),
);

export const ProjectStatus = lazy(() =>
  z.looseObject({
    signals_ready: z.boolean(),
    scoring: z.enum(['not_started', 'running', 'done']),
    summary: z.string(),
    next: z.enum(['wait', 'run_analyses', 'list_signals']),
    analyses: z.array(
      z.looseObject({
        keyword_id: z.optional(z.string()),
        keyword_name: z.optional(z.string()),
        task_id: z.optional(z.string()),
        status: z.optional(z.enum(['pending', 'running', 'done', 'failed'])),
        updated_at: z.optional(z.string()),
        // "items with id, type, status": described, not marked required.
        runs: z.optional(
          z.array(z.looseObject({ id: z.optional(z.string()), type: z.optional(z.string()), status: z.optional(z.string()) })),
        ),
      }),
    ),
  }),
);

export const Signal = lazy(() =>
  z.looseObject({
    keyword_id: z.string(),
    signal_keyword_id: z.string(),
    name: z.optional(nullableString()),
    type: z.string(),
    position: z.optional(z.int()),
    rank: z.optional(z.nullable(z.int())),
    analysed: z.boolean(),
  }),
);
export const SignalList = lazy(() =>
  z.looseObject({
    analysis_mode: z.string(),
    analysis_mode_label: z.string(),
    filter: z.string(),
    total: z.int(),
    unanalysed_total: z.int(),
    signals: z.array(Signal()),
  }),
);

export const OpportunityPayload = lazy(() =>
  z.looseObject({
    keywords: z.array(z.record(z.string(), z.unknown())),
    project_analyses: z.optional(
      z.looseObject({
        total: z.optional(z.int()),
        generating: z.optional(z.int()),
        running: z.optional(z.int()),
        completed: z.optional(z.int()),
        by_status: z.optional(z.record(z.string(), z.int())),
        items: z.optional(z.array(z.record(z.string(), z.unknown()))),
      }),
    ),
    error: nullableString(),
  }),
);

export const Selection = lazy(() =>
  z.object({ keyword_id: z.string().check(z.minLength(1)), signal_keyword_id: z.string().check(z.minLength(1)) }),
);
export const RunAnalysesBody = lazy(() =>
  z.object({
    selections: z.optional(z.array(Selection())),
    top: z.optional(
      z.object({
        type: z.enum(TOP_TYPES),
        limit: z.int().check(z.gte(LIMITS.topLimit.min), z.lte(LIMITS.topLimit.max)),
        analysis_mode: z.optional(z.enum(ANALYSIS_MODES)),
        confirmed: z.optional(z.boolean()),
        include_analysed: z.optional(z.boolean()),
        readiness: z.optional(z.string()),
        therapeutic_area: z.optional(z.string()),
      }),
    ),
    include_analysed: z.optional(z.boolean()),
    confirmed: z.optional(z.boolean()),
  }),
);
export const AnalysesResult = lazy(() =>
  z.looseObject({
    needs_confirmation: z.optional(z.boolean()),
    assumption: z.optional(z.string()),
    available: z.optional(z.int()),
    limit: z.optional(z.int()),
    signals: z.optional(z.array(z.record(z.string(), z.unknown()))),
    // runs items: "all required"; skipped items: "all strings", none marked required.
    runs: z.optional(z.array(z.looseObject({ id: z.string(), keyword_id: z.string(), kind: z.string() }))),
    skipped: z.optional(
      z.array(
        z.looseObject({ keyword_id: z.optional(z.string()), signal_keyword_id: z.optional(z.string()), reason: z.optional(z.string()) }),
      ),
    ),
  }),
);

export type PageMeta = z.infer<ReturnType<typeof PageMeta>>;
export type KeywordHit = z.infer<ReturnType<typeof KeywordHit>>;
export type KeywordSearchPage = z.infer<ReturnType<typeof KeywordSearchPage>>;
export type KeywordScore = z.infer<ReturnType<typeof KeywordScore>>;
export type KeywordCard = z.infer<ReturnType<typeof KeywordCard>>;
export type RelationItem = z.infer<ReturnType<typeof RelationItem>>;
export type RelationPage = z.infer<ReturnType<typeof RelationPage>>;
export type Project = z.infer<ReturnType<typeof Project>>;
export type ProjectList = z.infer<ReturnType<typeof ProjectList>>;
export type ScopeItem = z.infer<ReturnType<typeof ScopeItem>>;
export type CreateProjectBody = z.infer<ReturnType<typeof CreateProjectBody>>;
export type CreatedProject = z.infer<ReturnType<typeof CreatedProject>>;
export type ProjectStatus = z.infer<ReturnType<typeof ProjectStatus>>;
export type Signal = z.infer<ReturnType<typeof Signal>>;
export type SignalList = z.infer<ReturnType<typeof SignalList>>;
export type OpportunityPayload = z.infer<ReturnType<typeof OpportunityPayload>>;
export type Selection = z.infer<ReturnType<typeof Selection>>;
export type RunAnalysesBody = z.infer<ReturnType<typeof RunAnalysesBody>>;
export type AnalysesResult = z.infer<ReturnType<typeof AnalysesResult>>;
