import { type Column, columnKey, exactInRow, expandColumns } from './columns.js';
import { tsvField } from './cells.js';
import type { Io } from './io.js';
import { write } from './write.js';

/**
 * One record piped as tsv (a keyword card), as gh's `view` prints one: a `field<TAB>value` line per
 * field (objects as their dotted fields), so `| grep momentum` finds its lines and `| cut -f2` the
 * values. docs/scripting.md, "Formats".
 */
export async function printRecordLines<T>(io: Io, row: T, columns: readonly Column<T>[], rowJson: (row: T) => unknown): Promise<void> {
  const lines = expandColumns(columns, [row]).map(
    (c) => `${tsvField(columnKey(c))}\t${tsvField(exactInRow(c.value(row), rowJson(row)))}\n`,
  );
  await write(io.stdout, lines.join(''));
}
