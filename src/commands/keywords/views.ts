/**
 * The columns `rsi keywords search` and `rsi keywords relations` show, declared once: the commands
 * print them and `--fields` takes their keys (the command's declaration lists them as its fields; test/unit/fields-every-format.test.ts holds the two together).
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

/** A row of `rsi keywords relations -`: one link of an input keyword, or the input's error. */
export type LinkRow = { input: string; link?: Record<string, unknown>; error?: string };

export const RELATION_BATCH_COLUMNS: readonly Column<LinkRow>[] = [
  { header: 'INPUT', value: (r) => r.input },
  { header: 'NAME', value: (r) => r.link?.name, flexible: true },
  { header: 'COUNT', value: (r) => r.link?.count, numeric: true },
  { header: 'STAGE', value: (r) => r.link?.stage },
  { header: 'ID', value: (r) => r.link?.id, id: true },
  { header: 'ERROR', value: (r) => r.error, flexible: true },
];
