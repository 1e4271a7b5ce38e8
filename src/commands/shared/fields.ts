/**
 * The names `--fields` takes per command (listed in each command's --help). Plain data: program.ts
 * imports it on every run to print the lists.
 */
/** What `--fields` may name for a command, and where its JSON keeps the rows. */
export interface FieldSpec {
  /**
   * The csv column keys, which are also the members of the JSON rows (`section`: the part a row of
   * a multi-part reply belongs to, in tsv/csv). `--fields` also takes a dotted path starting with
   * one of them (`composite.score`, `scores.composite.score`).
   */
  fields: readonly string[];
  /** The member of the JSON document holding the rows; none when the document is the row. */
  rows?: string;
}

const CARD = [
  'id',
  'name',
  'type',
  'synonyms',
  'description',
  'activity',
  'scores',
  'papers',
  'patents',
  'trials',
  'assets',
  'scores_as_of',
  'composite',
  'momentum',
  'maturity',
  'competition',
  'risk',
  'translation',
  'indications',
  'sponsors',
  'pipeline_targets',
  'count',
  'stage',
];

/** By command path. A command not listed prints no fixed columns: `--fields` is refused there. */
export const FIELDS: Readonly<Record<string, FieldSpec>> = {
  'keywords search': { fields: ['name', 'type', 'synonyms', 'id'], rows: 'data' },
  'keywords get': { fields: [...CARD, 'input', 'error', 'section'] },
  'keywords relations': { fields: ['name', 'count', 'stage', 'id', 'input', 'error'], rows: 'data' },
  'projects list': { fields: ['name', 'role', 'created_at', 'id', 'brief'], rows: 'projects' },
  signals: { fields: ['rank', 'name', 'type', 'analysed', 'keyword_id', 'signal_keyword_id', 'position'], rows: 'signals' },
  scoreboard: {
    fields: ['rank', 'name', 'type', 'score', 'momentum', 'maturity', 'competition', 'risk', 'translation', 'keyword_id'],
    rows: 'scoreboard',
  },
  status: {
    fields: [
      'signals_ready',
      'scoring',
      'next',
      'summary',
      'analyses',
      'keyword_id',
      'keyword_name',
      'task_id',
      'status',
      'updated_at',
      'runs',
      'section',
    ],
  },
  'analyses run': { fields: ['id', 'keyword_id', 'kind', 'signal_keyword_id', 'reason', 'runs', 'skipped', 'section'] },
  'mcp tools': { fields: ['name', 'arguments', 'description'] },
};
