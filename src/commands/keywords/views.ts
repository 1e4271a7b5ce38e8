/**
 * The columns `rsi keywords search` and `rsi keywords relations` show, declared once: the commands
 * print them and `--fields` takes their keys (src/commands/shared/fields.ts derives the names).
 * Plain data, so reading the names for --help loads nothing more.
 */
import type { KeywordHit, RelationItem } from '../../client/schemas.js';
import type { Column } from '../../io/columns.js';

export const SEARCH_COLUMNS: readonly Column<KeywordHit>[] = [
  { header: 'NAME', value: (k) => k.name },
  { header: 'TYPE', value: (k) => k.type },
  { header: 'SYNONYMS', value: (k) => k.synonyms, flexible: true },
  { header: 'ID', value: (k) => k.id, id: true },
];

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
export type LinkRow = { input: string; link?: Record<string, unknown>; error?: string };

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
];
