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
import * as z from 'zod';
import { ANALYSIS_MODES, OPERANDS, TOP_TYPES } from './enums.js';

/**
 * Each schema is built on first use and then kept: building all of them costs several ms at every
 * start, and a command needs one or two (docs/performance.md, round 3). Call `KeywordCard()` for
 * the schema; the type of the same name is what it parses to.
 */
function lazy<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}
const nullableString = lazy(() => z.string().nullable());

export const PageMeta = lazy(() => z.looseObject({ page: z.number().int(), pageSize: z.number().int() }));
export const KeywordHit = lazy(() => z.looseObject({ id: z.string(), name: z.string(), type: z.string(), synonyms: z.array(z.string()) }));
export const KeywordSearchPage = lazy(() => z.looseObject({ data: z.array(KeywordHit()), meta: PageMeta() }));

// "KeywordScore (nullable object)": no member is marked required.
export const KeywordScore = lazy(() =>
  z
    .looseObject({
      score: z.number().optional(),
      raw: z.number().nullable().optional(),
      label: z.string().optional(),
      description: z.string().optional(),
    })
    .nullable(),
);
const nullableInt = lazy(() => z.number().int().nullable());
export const KeywordCard = lazy(() =>
  z.looseObject({
    id: z.string(),
    name: z.string(),
    type: nullableString(),
    description: nullableString(),
    synonyms: z.array(z.string()),
    // The object is required; its members are described ("each integer or null"), not marked required.
    activity: z.looseObject({
      papers: nullableInt().optional(),
      patents: nullableInt().optional(),
      trials: nullableInt().optional(),
      assets: nullableInt().optional(),
    }),
    scores: z.looseObject({
      as_of: nullableString().optional(),
      composite: KeywordScore().optional(),
      momentum: KeywordScore().optional(),
      maturity: KeywordScore().optional(),
      competition: KeywordScore().optional(),
      risk: KeywordScore().optional(),
      translation: KeywordScore().optional(),
    }),
  }),
);

export const RelationItem = lazy(() =>
  z.looseObject({
    id: z.string(),
    name: z.string(),
    count: z.number().int().optional(),
    stage: nullableString().optional(),
  }),
);
export const RelationPage = lazy(() =>
  z.looseObject({
    data: z.array(RelationItem()),
    meta: z.looseObject({
      relation: z.string(),
      activity: z.string().optional(),
      limit: z.number().int(),
      offset: z.number().int(),
      total: z.number().int(),
    }),
  }),
);

export const Project = lazy(() =>
  z.looseObject({
    id: z.string(),
    name: z.string(),
    created_at: z.string().optional(),
    role: z.enum(['owner', 'editor', 'viewer']),
    brief: nullableString().optional(),
  }),
);
export const ProjectList = lazy(() => z.looseObject({ projects: z.array(Project()) }));

export const ScopeItem = lazy(() =>
  z.looseObject({
    entity_id: z.string().min(1),
    entity_type: z.string().min(1),
    entity_name: z.string().optional(),
    data: z.record(z.string(), z.unknown()).optional(),
  }),
);
export const CreateProjectBody = lazy(() =>
  z.object({
    name: z.string(),
    brief: z.string().optional(),
    watchlist_items: z.array(ScopeItem()).optional(),
    operand: z.enum(OPERANDS).optional(),
    goals: z.array(z.string()).optional(),
    primary_filter_type: z.string().optional(),
  }),
);
/** The spec's ids are UUIDs: an id that is not one never reaches a path or a suggested command. */
const Uuid = lazy(() => z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'not a UUID'));
export const CreatedProject = lazy(() =>
  z.looseObject({
    id: Uuid(),
    name: z.string(),
    role: z.string(),
    setup_url: z.string(),
    scan_error: z.string().optional(),
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
        keyword_id: z.string().optional(),
        keyword_name: z.string().optional(),
        task_id: z.string().optional(),
        status: z.enum(['pending', 'running', 'done', 'failed']).optional(),
        updated_at: z.string().optional(),
        // "items with id, type, status": described, not marked required.
        runs: z.array(z.looseObject({ id: z.string().optional(), type: z.string().optional(), status: z.string().optional() })).optional(),
      }),
    ),
  }),
);

export const Signal = lazy(() =>
  z.looseObject({
    keyword_id: z.string(),
    signal_keyword_id: z.string(),
    name: nullableString().optional(),
    type: z.string(),
    position: z.number().int().optional(),
    rank: z.number().int().nullable().optional(),
    analysed: z.boolean(),
  }),
);
export const SignalList = lazy(() =>
  z.looseObject({
    analysis_mode: z.string(),
    analysis_mode_label: z.string(),
    filter: z.string(),
    total: z.number().int(),
    unanalysed_total: z.number().int(),
    signals: z.array(Signal()),
  }),
);

export const OpportunityPayload = lazy(() =>
  z.looseObject({
    keywords: z.array(z.record(z.string(), z.unknown())),
    project_analyses: z
      .looseObject({
        total: z.number().int().optional(),
        generating: z.number().int().optional(),
        running: z.number().int().optional(),
        completed: z.number().int().optional(),
        by_status: z.record(z.string(), z.number().int()).optional(),
        items: z.array(z.record(z.string(), z.unknown())).optional(),
      })
      .optional(),
    error: nullableString(),
  }),
);

export const Selection = lazy(() => z.object({ keyword_id: z.string().min(1), signal_keyword_id: z.string().min(1) }));
export const RunAnalysesBody = lazy(() =>
  z.object({
    selections: z.array(Selection()).optional(),
    top: z
      .object({
        type: z.enum(TOP_TYPES),
        limit: z.number().int().min(1).max(100),
        analysis_mode: z.enum(ANALYSIS_MODES).optional(),
        confirmed: z.boolean().optional(),
        include_analysed: z.boolean().optional(),
        readiness: z.string().optional(),
        therapeutic_area: z.string().optional(),
      })
      .optional(),
    include_analysed: z.boolean().optional(),
    confirmed: z.boolean().optional(),
  }),
);
export const AnalysesResult = lazy(() =>
  z.looseObject({
    needs_confirmation: z.boolean().optional(),
    assumption: z.string().optional(),
    available: z.number().int().optional(),
    limit: z.number().int().optional(),
    signals: z.array(z.record(z.string(), z.unknown())).optional(),
    // runs items: "all required"; skipped items: "all strings", none marked required.
    runs: z.array(z.looseObject({ id: z.string(), keyword_id: z.string(), kind: z.string() })).optional(),
    skipped: z
      .array(z.looseObject({ keyword_id: z.string().optional(), signal_keyword_id: z.string().optional(), reason: z.string().optional() }))
      .optional(),
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
