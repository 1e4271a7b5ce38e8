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
