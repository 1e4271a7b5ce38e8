/**
 * The columns `rsi keywords search` shows (the command's declaration lists them as its fields;
 * test/unit/fields-every-format.test.ts holds the two together). Plain data.
 */
import type { KeywordHit } from '../../../client/schemas.js';
import type { Column } from '../../../io/columns.js';

export const SEARCH_COLUMNS: readonly Column<KeywordHit>[] = [
  { header: 'NAME', value: (k) => k.name },
  { header: 'TYPE', value: (k) => k.type },
  { header: 'SYNONYMS', value: (k) => k.synonyms, flexible: true },
  { header: 'ID', value: (k) => k.id, id: true },
];
