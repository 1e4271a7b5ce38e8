/**
 * The columns `rsi keywords relations` shows, for one keyword and for many from stdin (the
 * command's declaration lists them as its fields; test/unit/fields-every-format.test.ts holds the
 * two together). Plain data.
 */
import type { RelationItem } from '../../../client/schemas.js';
import type { Column } from '../../../io/columns.js';

export const RELATION_COLUMNS: readonly Column<RelationItem>[] = [
  { header: 'NAME', value: (r) => r.name, flexible: true },
  { header: 'COUNT', value: (r) => r.count, numeric: true },
  { header: 'STAGE', value: (r) => r.stage },
  { header: 'ID', value: (r) => r.id, id: true },
];

/** A link of `--relation all` or a list: led by the relation (and activity, null but for sponsors) it came from. */
export type MultiLink = RelationItem & { relation: string; activity: string | null };

/** When more than one relation (or sponsors activity) is in the output, every row says which. */
export const RELATION_MULTI_COLUMNS: readonly Column<MultiLink>[] = [
  { header: 'RELATION', value: (r) => r.relation },
  { header: 'ACTIVITY', value: (r) => r.activity },
  ...(RELATION_COLUMNS as readonly Column<MultiLink>[]),
];

/** A row of `rsi keywords relations -`: one link of an input keyword (tagged when several relations were asked), or the input's error. */
export type LinkRow = { input: string; link?: Record<string, unknown>; error?: string; error_code?: string };

/** `rsi keywords relations -`'s columns; with several relations, RELATION and ACTIVITY after INPUT. */
export function relationBatchColumns(multi: boolean): readonly Column<LinkRow>[] {
  if (!multi) return RELATION_BATCH_COLUMNS;
  const [input, ...rest] = RELATION_BATCH_COLUMNS;
  return [input!, { header: 'RELATION', value: (r) => r.link?.relation }, { header: 'ACTIVITY', value: (r) => r.link?.activity }, ...rest];
}

export const RELATION_BATCH_COLUMNS: readonly Column<LinkRow>[] = [
  { header: 'INPUT', value: (r) => r.input },
  { header: 'NAME', value: (r) => r.link?.name, flexible: true },
  { header: 'COUNT', value: (r) => r.link?.count, numeric: true },
  { header: 'STAGE', value: (r) => r.link?.stage },
  { header: 'ID', value: (r) => r.link?.id, id: true },
  { header: 'ERROR', value: (r) => r.error, flexible: true },
  { header: 'ERROR_CODE', value: (r) => r.error_code },
];
