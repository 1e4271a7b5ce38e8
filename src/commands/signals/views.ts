/**
 * The columns `rsi signals` shows, declared once: the command prints them and `--fields` takes
 * their keys (the command's declaration lists them as its fields; test/unit/fields-every-
 * format.test.ts holds the two together). Plain data.
 */
import type { Signal } from '../../client/schemas.js';
import type { Column } from '../../io/columns.js';

/**
 * `oneKeyword`: every row shares the watchlist keyword, so a table (without --wide) leaves its id
 * out, as it does the feed position; tsv/csv keep every member.
 */
export function signalColumns(oneKeyword: boolean): Column<Signal>[] {
  return [
    { header: 'RANK', value: (s) => s.rank, numeric: true },
    { header: 'NAME', value: (s) => s.name, flexible: true },
    { header: 'TYPE', value: (s) => s.type },
    { header: 'ANALYSED', value: (s) => s.analysed },
    { header: 'KEYWORD_ID', value: (s) => s.keyword_id, id: true, wideOnly: oneKeyword },
    { header: 'SIGNAL_KEYWORD_ID', value: (s) => s.signal_keyword_id, id: true },
    // Last, so the earlier columns keep their places for `cut -f`.
    { header: 'POSITION', value: (s) => s.position, numeric: true, wideOnly: true },
  ];
}
