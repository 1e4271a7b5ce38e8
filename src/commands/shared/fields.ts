/**
 * The names `--fields` takes per command (listed in each command's --help), derived from the
 * columns each command declares once (its `views.ts`): the csv keys of those columns, in order.
 * The multi-part replies (`keywords get`, `status`, `analyses run`) also name the JSON members
 * that are no column of theirs. Plain data and the commands' plain column lists: program.ts imports
 * it on every run to print the lists, and loads no command's body for it.
 */
import { columnKey } from '../../io/columns.js';
import { RELATION_BATCH_COLUMNS, RELATION_COLUMNS, RELATION_MULTI_COLUMNS, SEARCH_COLUMNS } from '../keywords/views.js';
import { toolColumns } from '../mcp/views.js';
import { RUN_COLUMNS, SKIP_COLUMNS } from '../analyses/views.js';
import { PROJECT_COLUMNS } from '../projects/views.js';
import { scoreboardColumns } from '../scoreboard/views.js';
import { signalColumns } from '../signals/views.js';
import { ANALYSIS_COLUMNS, STATUS_COLUMNS } from '../status/views.js';
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

/** The csv keys of declared columns, each once, in order of first appearance. */
function keys(...lists: ReadonlyArray<ReadonlyArray<{ header: string; key?: string | undefined }>>): string[] {
  const found: string[] = [];
  for (const list of lists) for (const c of list) if (!found.includes(columnKey(c))) found.push(columnKey(c));
  return found;
}

/** By command path. A command not listed prints no fixed columns: `--fields` is refused there. */
export const FIELDS: Readonly<Record<string, FieldSpec>> = {
  'keywords search': { fields: keys(SEARCH_COLUMNS), rows: 'data' },
  'keywords get': { fields: [...CARD, 'input', 'error', 'section'] },
  'keywords relations': { fields: keys(RELATION_COLUMNS, RELATION_BATCH_COLUMNS, RELATION_MULTI_COLUMNS), rows: 'data' },
  'projects list': { fields: keys(PROJECT_COLUMNS), rows: 'projects' },
  signals: { fields: keys(signalColumns(false)), rows: 'signals' },
  scoreboard: { fields: keys(scoreboardColumns(String)), rows: 'scoreboard' },
  // The reply's list members (`analyses`, `runs`, `skipped`) are JSON members beside the parts' columns.
  status: { fields: [...keys(STATUS_COLUMNS), 'analyses', ...keys(ANALYSIS_COLUMNS), 'section'] },
  'analyses run': { fields: [...keys(RUN_COLUMNS, SKIP_COLUMNS), 'runs', 'skipped', 'section'] },
  'mcp tools': { fields: keys(toolColumns(() => '')) },
};
