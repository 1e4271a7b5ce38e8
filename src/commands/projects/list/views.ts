/**
 * The columns `rsi projects list` shows, declared once: the command prints them and `--fields`
 * takes their keys (the command's declaration lists them as its fields; test/unit/fields-every-
 * format.test.ts holds the two together). Plain data.
 */
import type { ProjectList } from '../../../client/schemas.js';
import type { Column } from '../../../io/columns.js';

export const PROJECT_COLUMNS: readonly Column<ProjectList['projects'][number]>[] = [
  { header: 'NAME', value: (p) => p.name },
  { header: 'ROLE', value: (p) => p.role },
  { header: 'CREATED', key: 'created_at', value: (p) => p.created_at, time: true },
  { header: 'ID', value: (p) => p.id, id: true },
  { header: 'BRIEF', value: (p) => p.brief, flexible: true },
];
