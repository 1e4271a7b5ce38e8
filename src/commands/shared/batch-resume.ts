/**
 * `--resume FILE` (issue 57): a batch stopped part way (SIGTERM, a lost connection, a laptop lid)
 * continues where its output ends, `rsi … - --resume out.ndjson < ids >> out.ndjson`.
 *
 * The file is the previous run's output in this run's format (ndjson, csv with its header, tsv with
 * or without one). Its rows are read in order beside the input lines: each answer must be for the
 * next input line (or for an earlier one whose answer was transient, see below), else the file is
 * not this input's output and the run stops before any request. Inputs answered for good (a card,
 * links, a 404, a validation error) are skipped; inputs whose error was transient (`error_code`
 * `unavailable`: a timeout, a 5xx, a 429) are asked again, first, and their rows follow the file's
 * end. A command whose answer spans rows (an input's links) asks the file's last input again and
 * leaves out the rows the file already holds, as a stop may have cut that answer short.
 *
 * Memory: the file is read as the input is, one row at a time; only transient inputs are held.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { formatOf } from '../../io/formats.js';
import { suggest } from '../../io/text.js';
import type { BatchLine } from './batch-lines.js';

/** What a batch tells `--resume`: the file, and whether one answer spans `many` rows (an input's links). */
export interface ResumeOptions {
  resume?: string | undefined;
  rows: 'one' | 'many';
}

/** The `error_code` of an answer that may pass when asked again (ServiceUnavailableError's code). */
const TRANSIENT = 'unavailable';

/** One answer in the file: the input cell as printed, whether it was transient, its rows. */
interface Answer {
  input: string;
  transient: boolean;
  rows: number;
}

export interface Resumed {
  /** Inputs the file answered for good (known once `skip` has read the file). */
  readonly skipped: number;
  /** Whether the file already holds a header row (csv, or tsv with one): this run prints none. */
  readonly hasHeader: boolean;
  /** The input lines this run still has to answer: the transient ones first, then those after the file's end. */
  skip(lines: AsyncIterable<BatchLine>): AsyncGenerator<BatchLine>;
  /** Rows of `input`'s answer the file already holds (a cut answer of many rows); once. */
  alreadyPrinted(input: string): number;
}

export async function readResume(ctx: Context, options: ResumeOptions): Promise<Resumed> {
  const file = options.resume!;
  const { format, fields, jq } = ctx.globals();
  if (jq !== undefined)
    throw new UsageError('--resume continues a file of rows, which --jq does not print', { hint: 'use --format ndjson, csv or tsv' });
  const readBack = formatOf(format).readBack;
  if (readBack === undefined)
    throw new UsageError(`--resume continues a file of rows, which --format ${format} cannot do`, {
      hint: 'use --format ndjson, csv or tsv: they are files of rows, which a later run can continue',
    });
  if (fields && !fields.includes('input')) throw new UsageError('--resume reads the input column of the file: --fields must include input');
  // A file that is not there yet is a run that has not started: nothing to skip.
  const handle = await open(file, 'r').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw new UsageError(`--resume: cannot read ${file}: ${error.code === 'EACCES' ? 'permission denied' : error.message}`);
  });
  let size = 0;
  let firstLine: string | undefined;
  if (handle) {
    try {
      const info = await handle.stat();
      if (info.isDirectory()) throw new UsageError(`--resume: ${file} is a directory`);
      size = info.size;
      if (size > 0) {
        // The first line says whether the file has a header row, which this run then leaves out.
        const head = Buffer.alloc(Math.min(size, 1024 * 1024));
        await handle.read(head, 0, head.length, 0);
        const end = head.indexOf(0x0a);
        // A first line longer than that is a row (a header is short): read with the others.
        if (end >= 0) firstLine = head.subarray(0, end).toString('utf8').replace(/\r$/, '');
        const last = Buffer.alloc(1);
        await handle.read(last, 0, 1, size - 1);
        // Appending to a cut line would glue two rows into one.
        if (last[0] !== 0x0a)
          throw new UsageError(`--resume: ${file} ends in a cut line (a run killed while writing it)`, {
            hint: `remove that last line (${suggest(['sed', '-i', '$d', file])}), then resume again`,
          });
      }
    } finally {
      await handle.close();
    }
  }
  const reader = readBack(fields);
  if (firstLine !== undefined && firstLine !== '') reader.read(firstLine, 1);
  let skipped = 0;
  const partial = new Map<string, number>();
  async function* answers(): AsyncGenerator<Answer> {
    if (size === 0) return;
    const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
    let current: (Answer & { first: string }) | undefined;
    let n = 0;
    for await (const text of lines) {
      n++;
      if (text === '' || (n === 1 && reader.hasHeader())) continue;
      const read = reader.read(text, n);
      if (!read) continue;
      const row = { ...read, transient: read.code === TRANSIENT };
      // Rows of one answer are consecutive, each different; a row like the answer's first starts another.
      if (options.rows === 'many' && current && current.input === row.input && current.first !== row.rest && !row.transient) {
        current.rows++;
        continue;
      }
      if (current) yield current;
      current = { input: row.input, transient: row.transient, rows: 1, first: row.rest };
    }
    if (current) yield current;
  }
  return {
    get skipped() {
      return skipped;
    },
    get hasHeader() {
      return reader.hasHeader();
    },
    async *skip(lines) {
      const input = lines[Symbol.asyncIterator]();
      // Transient inputs by their printed input, in line order, until a later answer settles them.
      const pending = new Map<string, BatchLine[]>();
      let last: { line: BatchLine; answer: Answer } | undefined;
      let count = 0;
      for await (const answer of answers()) {
        count++;
        let line = pending.get(answer.input)?.shift();
        if (line === undefined) {
          const next = await input.next();
          if (next.done)
            throw new UsageError(`--resume: ${file} answers more inputs than stdin holds (answer ${count}, for "${answer.input}")`, {
              hint: 'resume with the input (and the command) that made the file',
            });
          line = next.value;
          if (reader.printed(line.item) !== answer.input)
            throw new UsageError(
              `--resume: ${file} is not this input's output: its answer ${count} is for "${answer.input}", but stdin line ${line.line} is "${line.item}"`,
              { hint: 'resume with the input (and the command) that made the file' },
            );
        }
        if (answer.transient) {
          const list = pending.get(answer.input) ?? [];
          list.push(line);
          pending.set(answer.input, list);
        } else skipped++;
        last = { line, answer };
      }
      const again = [...pending.values()].flat();
      // The file's last answer may have been cut short: asked again first, its rows in the file left out.
      if (options.rows === 'many' && last && !last.answer.transient) {
        skipped--;
        partial.set(last.line.item, last.answer.rows);
        yield last.line;
      }
      for (const line of again.sort((a, b) => a.line - b.line)) yield line;
      for (let next = await input.next(); !next.done; next = await input.next()) yield next.value;
    },
    alreadyPrinted(item) {
      const rows = partial.get(item) ?? 0;
      partial.delete(item);
      return rows;
    },
  };
}
