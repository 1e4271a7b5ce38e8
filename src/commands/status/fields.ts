/**
 * The fields of `rsi status` (and of the status after `analyses run --wait`), each with its column:
 * what `--fields` takes, the key `--json` puts it under, and the column csv, tsv and the table
 * show, declared once. A module of its own because the status view (src/commands/shared/
 * status-view.ts), which both commands print through, reads them too.
 */
import type { ProjectStatus } from '../../client/schemas.js';
import { type Field, columnOnly, field, jsonOnly } from '../declaration.js';

export type AnalysisRow = ProjectStatus['analyses'][number] & { task_id?: string | undefined };

export const STATUS_FIELDS: readonly Field[] = [
  // The `status` part: in tsv/csv (a table says it in the summary above).
  ...['signals_ready', 'scoring', 'next', 'summary'].map((n) => field<ProjectStatus>(n)),
  jsonOnly(
    'analyses',
    'analyses',
    'in csv, tsv and the table each analysis is a row of its own: choose its columns (keyword_name, status, …)',
  ),
  // The `analysis` part: each analysis's members, kept inside the list in JSON:
  // {"analyses":[{"keyword_name":…}]}; every member in tsv/csv, ids included.
  ...(
    [
      ['keyword_id', { header: 'KEYWORD ID', id: true }],
      ['keyword_name', { header: 'KEYWORD' }],
      ['task_id', {}],
      ['status', {}],
      ['updated_at', { header: 'UPDATED', time: true }],
      ['runs', { tableValue: (a) => (a.runs ?? []).map((r) => `${r.type ?? '?'}:${r.status ?? '?'}`).join(' ') }],
    ] as const satisfies ReadonlyArray<readonly [string, Parameters<typeof field<AnalysisRow>>[1]]>
  ).map(([n, facts]): Field<AnalysisRow> => ({ ...field<AnalysisRow>(n, `analyses.${n}`, facts), part: 'analyses' })),
  {
    ...columnOnly(
      'section',
      'section names the part a row belongs to in csv and tsv; JSON keeps the analyses as their own member (--json analyses)',
    ),
    table: { refused: 'section names the part a row belongs to in csv and tsv; a table shows the status above its analyses' },
  },
];

/** The `analysis` part in a table: what people read first, the (shortened) id last. */
export const ANALYSIS_TABLE_ORDER = ['keyword_name', 'status', 'updated_at', 'runs', 'keyword_id'];
