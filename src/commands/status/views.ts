/**
 * The columns `rsi status` (and the status after `analyses run --wait`) shows, declared once: the
 * status view prints them and `--fields` takes their keys (the command's declaration lists them as
 * its fields; test/unit/fields-every-format.test.ts holds the two together). Plain data.
 */
import type { ProjectStatus } from '../../client/schemas.js';
import type { Column } from '../../io/columns.js';

export type AnalysisRow = ProjectStatus['analyses'][number] & { task_id?: string | undefined };

/** The `status` part in tsv/csv (a table says it in the summary above). */
export const STATUS_COLUMNS: readonly Column<ProjectStatus>[] = [
  { header: 'signals_ready', value: (s) => s.signals_ready },
  { header: 'scoring', value: (s) => s.scoring },
  { header: 'next', value: (s) => s.next },
  { header: 'summary', value: (s) => s.summary },
];

/** The `analysis` part: every member in tsv/csv, ids included. */
export const ANALYSIS_COLUMNS: readonly Column<AnalysisRow>[] = [
  { header: 'keyword_id', value: (a) => a.keyword_id },
  { header: 'keyword_name', value: (a) => a.keyword_name },
  { header: 'task_id', value: (a) => a.task_id },
  { header: 'status', value: (a) => a.status },
  { header: 'updated_at', value: (a) => a.updated_at },
  { header: 'runs', value: (a) => a.runs },
];

/** The `analysis` part in a table: what people read first, the (shortened) id last. */
export const ANALYSIS_TABLE_COLUMNS: readonly Column<AnalysisRow>[] = [
  { header: 'KEYWORD', value: (a) => a.keyword_name },
  { header: 'STATUS', value: (a) => a.status },
  { header: 'UPDATED', value: (a) => a.updated_at, time: true },
  { header: 'RUNS', value: (a) => (a.runs ?? []).map((r) => `${r.type ?? '?'}:${r.status ?? '?'}`).join(' ') },
  { header: 'KEYWORD ID', value: (a) => a.keyword_id, id: true },
];
