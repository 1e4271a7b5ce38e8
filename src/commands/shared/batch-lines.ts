/**
 * The lines of a batch, read from stdin as they arrive (issue 57): a producer that never ends
 * (`tail -f`, a queue consumer) gets its first row while it is still writing, and a million lines
 * cost no more memory than ten. Only the unfinished last line is held between chunks, and a line
 * longer than `MAX_LINE_BYTES` is refused rather than buffered without end.
 *
 * A binary file piped by mistake (a spreadsheet, a gzip, UTF-16 text from Windows) would otherwise
 * become thousands of garbage lookups: the first chunk and every line are checked, and the error
 * says what the bytes looked like.
 */
import { UsageError } from '../../errors.js';

/** One input line of a batch: its number on stdin (from 1), and the item it names, or why it names none. */
export interface BatchLine {
  line: number;
  /** The id or name the line asks for (the raw line when it names none: its error row shows it). */
  item: string;
  /** Set when the line names no item: the item fails with this, and the batch goes on. */
  problem?: string | undefined;
}

/** The longest line a batch takes: an id or a name is short; a longer "line" is not text. */
export const MAX_LINE_BYTES = 64 * 1024;

/** What a leading run of bytes is, when it is a kind of file people pipe by mistake. */
const SIGNATURES: ReadonlyArray<readonly [bytes: readonly number[], what: string, hint?: string]> = [
  [[0x1f, 0x8b], 'gzip-compressed data', 'decompress it first: gunzip -c FILE | rsi …'],
  [[0x50, 0x4b, 0x03, 0x04], 'a zip archive (an .xlsx or .docx is one)', 'export the column as text, one id or name a line'],
  [[0x25, 0x50, 0x44, 0x46], 'a PDF document'],
  [[0x42, 0x5a, 0x68], 'bzip2-compressed data', 'decompress it first: bzcat FILE | rsi …'],
  [[0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], 'xz-compressed data', 'decompress it first: xzcat FILE | rsi …'],
  [[0x28, 0xb5, 0x2f, 0xfd], 'zstd-compressed data', 'decompress it first: zstdcat FILE | rsi …'],
  [[0xd0, 0xcf, 0x11, 0xe0], 'an old Office document (.xls, .doc)', 'export the column as text, one id or name a line'],
  [[0x7f, 0x45, 0x4c, 0x46], 'an ELF executable'],
  [[0xff, 0xfe], 'UTF-16 text (little-endian)', 'convert it to UTF-8 first: iconv -f UTF-16 -t UTF-8 FILE | rsi …'],
  [[0xfe, 0xff], 'UTF-16 text (big-endian)', 'convert it to UTF-8 first: iconv -f UTF-16 -t UTF-8 FILE | rsi …'],
  [[0x89, 0x50, 0x4e, 0x47], 'a PNG image'],
  [[0xff, 0xd8, 0xff], 'a JPEG image'],
];

const NOT_TEXT_HINT = 'pipe in text: one keyword id or name a line, or NDJSON objects with "id" or "name"';

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((b, i) => bytes[i] === b);
}

/** The error for bytes that are not text, naming what they look like and where. */
function notText(line: number, what: string, hint = NOT_TEXT_HINT): UsageError {
  return new UsageError(`stdin is not text: line ${line} holds ${what}; a batch reads one keyword id or name a line`, { hint });
}

/** Checks the first bytes of stdin for the kinds of file people pipe by mistake. */
function checkSignature(head: Uint8Array): void {
  for (const [bytes, what, hint] of SIGNATURES) if (startsWith(head, bytes)) throw notText(1, what, hint);
}

/** A line's bytes must be UTF-8 text without control bytes other than tab. */
function checkLine(bytes: Uint8Array, line: number): void {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 0) throw notText(line, `a NUL byte (at byte ${i + 1})`);
    if (b < 0x20 && b !== 0x09 && b !== 0x0d)
      throw notText(line, `the control byte 0x${b.toString(16).padStart(2, '0')} (at byte ${i + 1})`);
  }
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function decodeLine(bytes: Uint8Array, line: number): string {
  try {
    return decoder.decode(bytes);
  } catch {
    const at = bytes.findIndex((b) => b >= 0x80);
    throw notText(
      line,
      `bytes that are not UTF-8 (from byte ${at + 1})`,
      'convert it to UTF-8 first: iconv -f LATIN1 -t UTF-8 FILE | rsi …',
    );
  }
}

/**
 * Each line of `stdin` as it arrives, numbered from 1, without its line break (`\n` or `\r\n`); the
 * last line too when it has no break. Throws (a UsageError) on bytes that are not text.
 */
export async function* readLines(stdin: AsyncIterable<unknown>): AsyncGenerator<{ line: number; text: string }> {
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let line = 0;
  let first = true;
  const take = (tail: Uint8Array): string => {
    let bytes = tail;
    if (pending.length > 0) {
      bytes = Buffer.concat([...pending, tail]);
      pending = [];
      pendingBytes = 0;
    }
    line++;
    if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
    checkLine(bytes, line);
    return decodeLine(bytes, line);
  };
  for await (const raw of stdin) {
    const chunk = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : (raw as Uint8Array);
    if (first && chunk.length > 0) {
      first = false;
      checkSignature(chunk);
      // A NUL anywhere in the first chunk is binary: refused before its first line is asked for.
      const nul = chunk.indexOf(0);
      if (nul >= 0) {
        const before = chunk.subarray(0, nul);
        let at = nul;
        let number = 1;
        for (let i = before.indexOf(0x0a); i >= 0; i = before.indexOf(0x0a, i + 1)) {
          number++;
          at = nul - i - 1;
        }
        throw notText(number, `a NUL byte (at byte ${at + 1})`);
      }
    }
    let start = 0;
    for (let nl = chunk.indexOf(0x0a, start); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      yield { line: line + 1, text: take(chunk.subarray(start, nl)) };
      start = nl + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      pendingBytes += rest.length;
      if (pendingBytes > MAX_LINE_BYTES) {
        checkLine(Buffer.concat([...pending, rest]), line + 1);
        throw notText(line + 1, `more than ${MAX_LINE_BYTES / 1024} KiB without a line break`);
      }
      // A copy: the stream may reuse its buffer.
      pending.push(Uint8Array.prototype.slice.call(rest));
    }
  }
  if (pendingBytes > 0) yield { line: line + 1, text: take(new Uint8Array(0)) };
}

/**
 * One line of a batch as an item: an id or name (blank lines and `#` comments skipped: undefined),
 * or an NDJSON object carrying `id` or `name` (an `id` wins). A line that is neither is an item
 * too, the raw line, with the problem that makes it fail: it gets its error line and error row
 * like any failed item, and the rest of the batch still runs.
 */
export function batchItem(raw: string, line: number): BatchLine | undefined {
  const text = raw.trim();
  if (text === '' || text.startsWith('#')) return undefined;
  if (!text.startsWith('{')) return { line, item: text };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { line, item: text, problem: `stdin line ${line} is not valid JSON (${(error as Error).message})` };
  }
  const { id, name } = (parsed ?? {}) as { id?: unknown; name?: unknown };
  const value = typeof id === 'string' && id.trim() ? id : typeof name === 'string' && name.trim() ? name : undefined;
  if (value === undefined) return { line, item: text, problem: `stdin line ${line}: a JSON line needs a string "id" or "name"` };
  return { line, item: value.trim() };
}

/** The items of a batch from stdin, as the lines arrive. */
export async function* batchItems(stdin: AsyncIterable<unknown>): AsyncGenerator<BatchLine> {
  for await (const { line, text } of readLines(stdin)) {
    const item = batchItem(text, line);
    if (item) yield item;
  }
}
