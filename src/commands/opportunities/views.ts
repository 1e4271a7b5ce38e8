/**
 * The columns `rsi opportunities` declares, once: csv and tsv always have them, in this order,
 * whatever the data (the spec leaves the scored datasets' and the analysis items' members free-form,
 * so these are the members rsi knows they carry); members beyond them follow in first-seen order.
 * `--fields` takes their keys (src/commands/shared/fields.ts). Plain data.
 */
import type { Column } from '../../io/columns.js';

type Item = Record<string, unknown>;

const member = (key: string): Column<Item> => ({ header: key, key, value: (row) => row[key] });

/** A scored keyword (the `keyword` part): the usual members, the scores in the card's order. */
export const OPPORTUNITY_COLUMNS: readonly Column<Item>[] = [
  'name',
  'type',
  'score',
  'momentum',
  'maturity',
  'competition',
  'risk',
  'translation',
  'analysis_mode',
  'keyword_id',
  'scored_at',
].map(member);

/** One of the project's analyses (the `analysis` part, `project_analyses.items`). */
export const OPPORTUNITY_ANALYSIS_COLUMNS: readonly Column<Item>[] = [
  'id',
  'keyword_id',
  'keyword_name',
  'kind',
  'status',
  'updated_at',
].map(member);
