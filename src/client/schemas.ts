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
import { en } from 'zod/locales';
import * as z from 'zod/mini';

// zod/mini, not classic zod: this module is built on every request, and building its schemas took
// ~12 ms of CPU with classic zod against ~7.5 ms with mini (docs/performance.md, "zod on the request
// path"). zod/mini registers no locale by itself ("Invalid input"); the reply errors quote classic
// zod's English ("expected string, received undefined"), so English is registered here. A named
// import: `z.locales.en` would bundle all 40-odd locales. config() is global and keeps a locale
// already set, so loading classic zod later (MCP) changes nothing.
if (!z.config().localeError) z.config(en());

// `.check(z.int())` is what classic zod's `.int()` does: the same checks, so the same issues.
const int = () => z.number().check(z.int());
const nullableString = z.nullable(z.string());

export const PageMeta = z.looseObject({ page: int(), pageSize: int() });
export const KeywordHit = z.looseObject({ id: z.string(), name: z.string(), type: z.string(), synonyms: z.array(z.string()) });
export const KeywordSearchPage = z.looseObject({ data: z.array(KeywordHit), meta: PageMeta });

// "KeywordScore (nullable object)": no member is marked required.
export const KeywordScore = z.nullable(
  z.looseObject({
    score: z.optional(z.number()),
    raw: z.optional(z.nullable(z.number())),
    label: z.optional(z.string()),
    description: z.optional(z.string()),
  }),
);
const nullableInt = z.nullable(int());
export const KeywordCard = z.looseObject({
  id: z.string(),
  name: z.string(),
  type: nullableString,
  description: nullableString,
  synonyms: z.array(z.string()),
  // The object is required; its members are described ("each integer or null"), not marked required.
  activity: z.looseObject({
    papers: z.optional(nullableInt),
    patents: z.optional(nullableInt),
    trials: z.optional(nullableInt),
    assets: z.optional(nullableInt),
  }),
  scores: z.looseObject({
    as_of: z.optional(nullableString),
    composite: z.optional(KeywordScore),
    momentum: z.optional(KeywordScore),
    maturity: z.optional(KeywordScore),
    competition: z.optional(KeywordScore),
    risk: z.optional(KeywordScore),
    translation: z.optional(KeywordScore),
  }),
});

export const RelationItem = z.looseObject({
  id: z.string(),
  name: z.string(),
  count: z.optional(int()),
  stage: z.optional(nullableString),
});
export const RelationPage = z.looseObject({
  data: z.array(RelationItem),
  meta: z.looseObject({
    relation: z.string(),
    activity: z.optional(z.string()),
    limit: int(),
    offset: int(),
    total: int(),
  }),
});

export const Project = z.looseObject({
  id: z.string(),
  name: z.string(),
  created_at: z.optional(z.string()),
  role: z.enum(['owner', 'editor', 'viewer']),
  brief: z.optional(nullableString),
});
export const ProjectList = z.looseObject({ projects: z.array(Project) });

const nonEmpty = () => z.string().check(z.minLength(1));
export const ScopeItem = z.looseObject({
  entity_id: nonEmpty(),
  entity_type: nonEmpty(),
  entity_name: z.optional(z.string()),
  data: z.optional(z.record(z.string(), z.unknown())),
});
export const CreateProjectBody = z.object({
  name: z.string(),
  brief: z.optional(z.string()),
  watchlist_items: z.optional(z.array(ScopeItem)),
  operand: z.optional(z.enum(['$and', '$or'])),
  goals: z.optional(z.array(z.string())),
  primary_filter_type: z.optional(z.string()),
});
export const CreatedProject = z.looseObject({
  id: z.string(),
  name: z.string(),
  role: z.string(),
  setup_url: z.string(),
  scan_error: z.optional(z.string()),
});

export const ProjectStatus = z.looseObject({
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
});

export const Signal = z.looseObject({
  keyword_id: z.string(),
  signal_keyword_id: z.string(),
  name: z.optional(nullableString),
  type: z.string(),
  position: z.optional(int()),
  rank: z.optional(z.nullable(int())),
  analysed: z.boolean(),
});
export const SignalList = z.looseObject({
  analysis_mode: z.string(),
  analysis_mode_label: z.string(),
  filter: z.string(),
  total: int(),
  unanalysed_total: int(),
  signals: z.array(Signal),
});

export const OpportunityPayload = z.looseObject({
  keywords: z.array(z.record(z.string(), z.unknown())),
  project_analyses: z.optional(
    z.looseObject({
      total: z.optional(int()),
      generating: z.optional(int()),
      running: z.optional(int()),
      completed: z.optional(int()),
      by_status: z.optional(z.record(z.string(), int())),
      items: z.optional(z.array(z.record(z.string(), z.unknown()))),
    }),
  ),
  error: nullableString,
});

export const Selection = z.object({ keyword_id: nonEmpty(), signal_keyword_id: nonEmpty() });
export const RunAnalysesBody = z.object({
  selections: z.optional(z.array(Selection)),
  top: z.optional(
    z.object({
      type: z.enum(['target', 'disease', 'modality', 'mechanism']),
      limit: z.number().check(z.int(), z.gte(1), z.lte(100)),
      analysis_mode: z.optional(z.enum(['most_promising', 'novel_signal_scout', 'validated_opportunity'])),
      confirmed: z.optional(z.boolean()),
      include_analysed: z.optional(z.boolean()),
      readiness: z.optional(z.string()),
      therapeutic_area: z.optional(z.string()),
    }),
  ),
  include_analysed: z.optional(z.boolean()),
  confirmed: z.optional(z.boolean()),
});
export const AnalysesResult = z.looseObject({
  needs_confirmation: z.optional(z.boolean()),
  assumption: z.optional(z.string()),
  available: z.optional(int()),
  limit: z.optional(int()),
  signals: z.optional(z.array(z.record(z.string(), z.unknown()))),
  // runs items: "all required"; skipped items: "all strings", none marked required.
  runs: z.optional(z.array(z.looseObject({ id: z.string(), keyword_id: z.string(), kind: z.string() }))),
  skipped: z.optional(
    z.array(
      z.looseObject({ keyword_id: z.optional(z.string()), signal_keyword_id: z.optional(z.string()), reason: z.optional(z.string()) }),
    ),
  ),
});

export type PageMeta = z.infer<typeof PageMeta>;
export type KeywordHit = z.infer<typeof KeywordHit>;
export type KeywordSearchPage = z.infer<typeof KeywordSearchPage>;
export type KeywordScore = z.infer<typeof KeywordScore>;
export type KeywordCard = z.infer<typeof KeywordCard>;
export type RelationItem = z.infer<typeof RelationItem>;
export type RelationPage = z.infer<typeof RelationPage>;
export type Project = z.infer<typeof Project>;
export type ProjectList = z.infer<typeof ProjectList>;
export type ScopeItem = z.infer<typeof ScopeItem>;
export type CreateProjectBody = z.infer<typeof CreateProjectBody>;
export type CreatedProject = z.infer<typeof CreatedProject>;
export type ProjectStatus = z.infer<typeof ProjectStatus>;
export type Signal = z.infer<typeof Signal>;
export type SignalList = z.infer<typeof SignalList>;
export type OpportunityPayload = z.infer<typeof OpportunityPayload>;
export type Selection = z.infer<typeof Selection>;
export type RunAnalysesBody = z.infer<typeof RunAnalysesBody>;
export type AnalysesResult = z.infer<typeof AnalysesResult>;
