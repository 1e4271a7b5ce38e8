/**
 * The one terminal sanitiser. Text that reaches a person (table/tsv/csv cells, error and hint lines,
 * warnings, prompts, progress, the --debug trace) may come from a server or from other people's
 * project names; a raw ESC there can clear the screen, plant an OSC 8 link, write the clipboard
 * (OSC 52) or redraw a confirmation prompt, and a bidi override can make text read backwards.
 * So every C0 control (except the newline that ends a line, where allowed), DEL, every C1 control
 * and the bidi controls become visible escapes such as `\x1b` or `\u202e`. JSON output is never
 * passed through here: JSON.stringify already escapes C0, and `--json` must stay exact.
 */
import { Writable } from 'node:stream';

/**
 * C0 (U+0000–U+001F), DEL (U+007F), C1 (U+0080–U+009F), the bidi embeddings and overrides
 * (U+202A–U+202E), the isolates (U+2066–U+2069), the implicit marks LRM/RLM/ALM (U+200E, U+200F,
 * U+061C), and the line/paragraph separators (U+2028, U+2029), which some terminals treat as breaks.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_KEEP_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const ANY_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const NAMED: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function escapeChar(ch: string): string {
  const named = NAMED[ch];
  if (named !== undefined) return named;
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** One line for a person: every unsafe character, newlines and tabs included, as a visible escape. */
export function sanitizeLine(text: string): string {
  return ANY_UNSAFE.test(text) ? text.replace(UNSAFE, escapeChar) : text;
}

/** Text for a person that may span lines: like `sanitizeLine`, but `\n` stays a line break. */
export function sanitizeText(text: string): string {
  return ANY_UNSAFE.test(text) ? text.replace(UNSAFE_KEEP_NEWLINE, escapeChar) : text;
}

/** Whether the text holds anything `sanitizeLine` would escape (tests and assertions). */
export function hasUnsafe(text: string): boolean {
  return ANY_UNSAFE.test(text);
}

/** The escapes this module writes; truncation must treat each as one unbreakable unit. */
const ESCAPE = /\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|[tnr])/g;

/**
 * Splits sanitised text into display units: one per code point, except that an escape written by
 * this module (`\x1b`, `\u202e`, `\t`) is one unit, so truncating never cuts it in half.
 */
export function displayUnits(text: string): string[] {
  if (!text.includes('\\')) return Array.from(text);
  const units: string[] = [];
  let last = 0;
  for (const m of text.matchAll(ESCAPE)) {
    for (const ch of text.slice(last, m.index)) units.push(ch);
    units.push(m[0]);
    last = m.index + m[0].length;
  }
  for (const ch of text.slice(last)) units.push(ch);
  return units;
}

/**
 * Columns a code point takes in a terminal: 2 for East Asian wide and fullwidth characters and
 * emoji, 0 for combining marks, the zero-width joiner and variation selectors, else 1. A table of
 * CJK names stays aligned.
 */
function charWidth(cp: number): number {
  if (cp < 0x300) return 1;
  if (cp <= 0x36f || cp === 0x200b || cp === 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f)) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  ) {
    return 2;
  }
  return 1;
}

/** Display width of sanitised text in terminal columns (escapes count as the characters they show). */
export function displayWidth(text: string): number {
  // Fast path: plain ASCII, the common case for ids and numbers.
  if (/^[\u0000-\u007f]*$/.test(text)) return text.length;
  let n = 0;
  for (const ch of text) n += charWidth(ch.codePointAt(0)!);
  return n;
}

/** Cuts sanitised text to at most `width` columns, ending in "…" when cut; never inside an escape. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  const room = Math.max(0, width - 1);
  let out = '';
  let used = 0;
  for (const unit of displayUnits(text)) {
    const w = unit.length > 1 && unit.startsWith('\\') ? unit.length : charWidth(unit.codePointAt(0)!);
    if (used + w > room) break;
    out += unit;
    used += w;
  }
  return `${out}…`;
}

/**
 * A stream for stderr that sanitises everything written through it while keeping line breaks.
 * Writes pass straight through (no buffering of its own), so lines keep their order with anything
 * written to the raw stream (the live progress line, prompts); `drain` and `error` are the target's.
 */
export function sanitizingStream(target: Writable): Writable {
  return new SanitizingStream(target);
}

type Listener = (...args: any[]) => void;
const DELEGATED = new Set<string | symbol>(['drain', 'error', 'close', 'finish']);

class SanitizingStream extends Writable {
  constructor(private readonly target: Writable) {
    super();
  }

  override write(chunk: unknown, encoding?: unknown, cb?: unknown): boolean {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk);
    const callback = typeof encoding === 'function' ? encoding : cb;
    return this.target.write(sanitizeText(text), callback as (error?: Error | null) => void);
  }

  override on(event: string | symbol, listener: Listener): this {
    if (DELEGATED.has(event)) this.target.on(event, listener);
    else super.on(event, listener);
    return this;
  }

  override once(event: string | symbol, listener: Listener): this {
    if (DELEGATED.has(event)) this.target.once(event, listener);
    else super.once(event, listener);
    return this;
  }

  override off(event: string | symbol, listener: Listener): this {
    if (DELEGATED.has(event)) this.target.off(event, listener);
    else super.off(event, listener);
    return this;
  }

  override removeListener(event: string | symbol, listener: Listener): this {
    return this.off(event, listener);
  }
}
