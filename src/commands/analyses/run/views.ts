/**
 * The data columns `rsi analyses run` shows for what it started and skipped, declared once: the
 * command prints them and `--fields` takes their keys (the command's declaration lists them as its
 * fields; test/unit/fields-every-format.test.ts holds the two together). Plain data; the table's
 * own columns, which add the signals' names, are the command's.
 */
import type { AnalysesResult } from '../../../client/schemas.js';
import type { Column } from '../../../io/columns.js';

export type RunRow = NonNullable<AnalysesResult['runs']>[number];
export type SkipRow = NonNullable<AnalysesResult['skipped']>[number];

export const RUN_COLUMNS: readonly Column<RunRow>[] = [
  { header: 'RUN ID', key: 'id', value: (r) => r.id },
  { header: 'KEYWORD ID', key: 'keyword_id', value: (r) => r.keyword_id },
  { header: 'KIND', key: 'kind', value: (r) => r.kind },
];

export const SKIP_COLUMNS: readonly Column<SkipRow>[] = [
  { header: 'KEYWORD ID', key: 'keyword_id', value: (s) => s.keyword_id },
  { header: 'SIGNAL KEYWORD ID', key: 'signal_keyword_id', value: (s) => s.signal_keyword_id },
  { header: 'REASON', key: 'reason', value: (s) => s.reason },
];
