/**
 * The columns `rsi scoreboard` shows, declared once: the command prints them and `--fields` takes
 * their keys (the command's declaration lists them as its fields; test/unit/fields-every-
 * format.test.ts holds the two together). Plain data.
 */
import type { Column } from '../../io/columns.js';
import type { ScoreboardReply } from '../../ops/features.js';

export type ScoreRow = ScoreboardReply['scoreboard'][number];

/**
 * In a table, scores as every other table shows them (`figure`: `54.4`, `7`); tsv and csv as the
 * JSON has them (`66`, `54.4`: numbers are never changed in any format).
 */
export function scoreboardColumns(figure: (n: number) => string): Column<ScoreRow>[] {
  const score = (of: (r: ScoreRow) => number | null | undefined): Pick<Column<ScoreRow>, 'value' | 'tableValue' | 'numeric'> => ({
    value: (r) => {
      const n = of(r);
      return typeof n === 'number' ? n : '';
    },
    tableValue: (r) => {
      const n = of(r);
      return typeof n === 'number' ? figure(n) : '';
    },
    numeric: true,
  });
  return [
    { header: 'RANK', value: (r) => r.rank, numeric: true },
    { header: 'NAME', value: (r) => r.name, flexible: true },
    { header: 'TYPE', value: (r) => r.type },
    { header: 'SCORE', ...score((r) => r.score) },
    { header: 'MOMENTUM', ...score((r) => r.momentum) },
    { header: 'MATURITY', ...score((r) => r.maturity) },
    { header: 'COMPETITION', ...score((r) => r.competition) },
    { header: 'RISK', ...score((r) => r.risk) },
    { header: 'TRANSLATION', ...score((r) => r.translation) },
    { header: 'KEYWORD ID', value: (r) => r.keyword_id, id: true },
  ];
}
