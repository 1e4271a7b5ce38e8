/**
 * The one terminal sanitiser. Text that reaches a person (table/tsv/csv cells, error and hint lines,
 * warnings, prompts, progress, the --debug trace) may come from a server or from other people's
 * project names; a raw ESC there can clear the screen, plant an OSC 8 link, write the clipboard
 * (OSC 52) or redraw a confirmation prompt, and a bidi override can make text read backwards.
 * So every C0 control (except the newline that ends a line, where allowed), DEL, every C1 control,
 * the bidi controls and every other invisible format character become visible escapes such as
 * `\x1b`, `\u202e` or `\u200b`. JSON output is never passed through here: it stays exact, with the
 * same characters written as `\uXXXX` escapes instead (src/io/json.ts).
 */
import type { Writable } from 'node:stream';
import { mappedStream } from './mapped-stream.js';

/**
 * Everything a person must see as an escape: every control (category Cc: C0, DEL, C1), every
 * format character (Cf: soft hyphen U+00AD, U+061C, U+180E, the zero-width space and joiners
 * U+200B–U+200D, LRM/RLM, the bidi embeddings, overrides and isolates, the word joiner U+2060 and
 * the invisible operators, U+FEFF, the tag characters U+E0001–U+E007F), the whole tag block
 * U+E0000–U+E007F, the line/paragraph separators (U+2028, U+2029, which some terminals treat as
 * breaks), the combining grapheme joiner U+034F and the Hangul fillers (U+115F, U+1160, U+3164,
 * U+FFA0), which draw as nothing, and unpaired surrogates (no character at all). Projects `Alpha`
 * and `Alpha\u200b` must not look the same. Kept as they are: the format characters a terminal
 * draws (`VISIBLE_FORMAT`) and the RGI emoji tag sequences (`FLAG_TAGS`).
 */
const UNSAFE_SET = '\\p{Cc}\\p{Cf}\\u2028\\u2029\\u034f\\u115f\\u1160\\u3164\\uffa0\\u{e0000}-\\u{e007f}\\ud800-\\udfff';
/**
 * Format characters a terminal draws, so they stay as they are: the prepended concatenation marks
 * (Unicode's Prepended_Concatenation_Mark: the Arabic number sign U+0600 to U+0605, the end of ayah
 * U+06DD, the Syriac abbreviation mark U+070F, U+0890, U+0891, U+08E2, the Kaithi number signs
 * U+110BD and U+110CD). They are Cf, but visible signs that span the digits after them.
 */
const VISIBLE_FORMAT = /^[\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u{110bd}\u{110cd}]$/u;
/**
 * The emoji tag sequences Unicode recommends (RGI): the flags of England, Scotland and Wales, a
 * black flag U+1F3F4 followed by tag letters and the cancel tag. Drawn as one flag, so kept whole;
 * tag characters anywhere else are invisible text (a known way to smuggle words past a reader) and
 * are escaped.
 */
const FLAG_TAGS =
  '\\u{1f3f4}\\u{e0067}\\u{e0062}(?:\\u{e0065}\\u{e006e}\\u{e0067}|\\u{e0073}\\u{e0063}\\u{e0074}|\\u{e0077}\\u{e006c}\\u{e0073})\\u{e007f}';
/**
 * The characters to escape, and the tag flags ahead of them so a match keeps a flag whole. With
 * the `u` flag a surrogate in the class matches only an unpaired one (a pair is one code point):
 * written out, an unpaired surrogate would become U+FFFD silently; escaped, it shows as `\ud800`.
 */
const UNSAFE = new RegExp(`(${FLAG_TAGS})|[${UNSAFE_SET}]`, 'gu');
const ANY_UNSAFE = new RegExp(`[${UNSAFE_SET}]`, 'u');
/** More combining marks than any script stacks on one letter: the rest of a flood is cut. */
const MARK_FLOOD = /(\p{M}{4})\p{M}+/gu;
const ANY_MARK = /\p{M}/u;
/**
 * An emoji (or its modifier or presentation selector) on both sides of a zero-width joiner. An
 * alternation, not one character class: on Node 26 (V8 14) a class holding a property escape,
 * anchored with `$`, no longer matches an astral character (`/[\p{Extended_Pictographic}]$/u`
 * fails on '👨'; Node 22 and 24 match it).
 */
const EMOJI_BEFORE = /(?:\p{Extended_Pictographic}|[\u{1f3fb}-\u{1f3ff}\ufe0f])$/u;
const EMOJI_AFTER = /^\p{Extended_Pictographic}/u;

const NAMED: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function escapeChar(ch: string): string {
  const named = NAMED[ch];
  if (named !== undefined) return named;
  const code = ch.codePointAt(0)!;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
}

function escapeUnsafe(text: string, keepNewline: boolean, cutMarks = true): string {
  if (ANY_UNSAFE.test(text)) {
    text = text.replace(UNSAFE, (ch: string, flag: string | undefined, offset: number, whole: string) => {
      if (flag !== undefined) return ch;
      if (keepNewline && ch === '\n') return ch;
      if (VISIBLE_FORMAT.test(ch)) return ch;
      // A ZWJ inside an emoji sequence (a family, a profession) is part of one picture: kept,
      // so the emoji draws whole; anywhere else it is one more invisible character, shown.
      if (
        ch === '\u200d' &&
        EMOJI_BEFORE.test(whole.slice(Math.max(0, offset - 2), offset)) &&
        EMOJI_AFTER.test(whole.slice(offset + 1, offset + 3))
      )
        return ch;
      return escapeChar(ch);
    });
  }
  return cutMarks && ANY_MARK.test(text) ? text.replace(MARK_FLOOD, '$1') : text;
}

/**
 * One line for a person: every unsafe character, newlines and tabs included, as a visible escape;
 * a flood of combining marks on one character cut to four.
 */
export function sanitizeLine(text: string): string {
  return escapeUnsafe(text, false);
}

/**
 * A csv or tsv cell (issue 30): every unsafe character as a visible escape, as `sanitizeLine` /
 * `sanitizeText` (`keepNewline`) write it, but every other character kept, combining marks
 * however many: these formats are for scripts, and the flood cut belongs to the terminal's tables.
 */
export function sanitizeCell(text: string, keepNewline: boolean): string {
  return escapeUnsafe(text, keepNewline, false);
}

/** Text for a person that may span lines: like `sanitizeLine`, but `\n` stays a line break. */
export function sanitizeText(text: string): string {
  return escapeUnsafe(text, true);
}

/**
 * Service text in the confirmation, quoted: each paragraph on one line (line breaks inside it
 * folded), indented and behind a `> ` mark rsi never starts a line of its own with, every control
 * shown as an escape. A crafted assumption cannot add a line that reads like rsi's question,
 * its "Nothing was run." or a forged count.
 */
export function quoteServiceText(text: string): string[] {
  return text
    .split(/\r?\n[\t ]*\r?\n/)
    .map((p) => sanitizeLine(p.replace(/\s*[\r\n]+\s*/g, ' ').trim()))
    .filter((p) => p !== '')
    .map((p) => `  > ${p}`);
}

/** The escapes this module writes; truncation must treat each as one unbreakable unit. */
const ESCAPE = /\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|u\{[0-9a-f]+\}|[tnr])/g;

let segmenter: Intl.Segmenter | undefined;
function graphemes(text: string): string[] {
  if (/^[\u0000-\u007f]*$/.test(text)) return text.split('');
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

/**
 * Splits sanitised text into display units: one per grapheme (an emoji family, a letter and its
 * accents), except that an escape written by this module (`\x1b`, `\u202e`, `\t`) is one unit,
 * so truncating never cuts either in half.
 */
export function displayUnits(text: string): string[] {
  if (!text.includes('\\')) return graphemes(text);
  const units: string[] = [];
  let last = 0;
  for (const m of text.matchAll(ESCAPE)) {
    units.push(...graphemes(text.slice(last, m.index)));
    units.push(m[0]);
    last = m.index + m[0].length;
  }
  units.push(...graphemes(text.slice(last)));
  return units;
}

/**
 * `string-width` builds an \p{RGI_Emoji} expression and an Intl.Segmenter when it loads: ~20–30 ms
 * of CPU at every start on Node 22 and 24, a fifth of one GET (docs/performance.md). Most runs
 * (JSON, ASCII cells) never ask for a width it must compute, so it loads on first use. `require` of
 * this ES module is bundled by esbuild as a lazily initialised module (Node ≥ 20.19 can require it
 * from source too).
 */
let widthOf: ((text: string) => number) | undefined;
function stringWidth(text: string): number {
  widthOf ??= (require('string-width') as typeof import('string-width')).default;
  return widthOf(text);
}

/** Columns one display unit takes: an escape its length, a grapheme what `string-width` says. */
function unitWidth(unit: string): number {
  if (unit.length === 1) return unit.charCodeAt(0) < 0x300 ? 1 : stringWidth(unit);
  return unit.startsWith('\\') ? unit.length : stringWidth(unit);
}

/**
 * Display width of sanitised text in terminal columns, grapheme-aware (`string-width`): emoji and
 * East Asian wide characters 2, a ZWJ family 2, combining marks 0; escapes count as the
 * characters they show.
 */
export function displayWidth(text: string): number {
  // Fast path: plain ASCII, the common case, and the "…" rsi itself puts on every cut id and cell
  // (one column, as string-width says: test/unit/sanitize-invisible.test.ts). Measuring each row's
  // short id through string-width's grapheme segmenter was a third of a 5,400-row table's CPU.
  if (/^[\u0000-\u007f\u2026]*$/.test(text)) return text.length;
  return stringWidth(text);
}

/** Cuts sanitised text to at most `width` columns, ending in "…" when cut; never inside an escape. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  const room = Math.max(0, width - 1);
  let out = '';
  let used = 0;
  for (const unit of displayUnits(text)) {
    const w = unitWidth(unit);
    if (used + w > room) break;
    out += unit;
    used += w;
  }
  return `${out}…`;
}

/**
 * Breaks sanitised text into lines of at most `width` columns, at spaces, never inside an escape.
 * A word wider than the line is broken between display units where a value must stay whole on a
 * narrow terminal (a keyword card's description); with `breakWords: false` it stays whole and the
 * terminal folds it (a URL, a command or an id, which broken by us could not be copied).
 */
export function wrap(text: string, width: number, { breakWords = true }: { breakWords?: boolean } = {}): string[] {
  if (width < 1 || displayWidth(text) <= width) return [text];
  const lines: string[] = [];
  let line = '';
  let used = 0;
  for (const word of commandsWhole(text.split(' '))) {
    const w = displayWidth(word);
    if (used > 0 && used + 1 + w <= width) {
      line += ` ${word}`;
      used += 1 + w;
      continue;
    }
    if (used > 0) lines.push(line);
    line = '';
    used = 0;
    if (!breakWords || w <= width || word.startsWith('`')) {
      line = word;
      used = w;
      continue;
    }
    for (const unit of displayUnits(word)) {
      const uw = unitWidth(unit);
      if (used + uw > width && used > 0) {
        lines.push(line);
        line = '';
        used = 0;
      }
      line += unit;
      used += uw;
    }
  }
  if (used > 0 || line) lines.push(line);
  return lines;
}

/**
 * The words of a line with each command in backticks (`rsi status "My project" --watch`) joined
 * back into one: a suggested command is never broken across lines, so it can be copied whole.
 */
function commandsWhole(words: readonly string[]): string[] {
  const out: string[] = [];
  let open = false;
  for (const word of words) {
    if (open) out[out.length - 1] += ` ${word}`;
    else out.push(word);
    if ((word.split('`').length - 1) % 2 === 1) open = !open;
  }
  return out;
}

/**
 * A stream for stderr that sanitises everything written through it while keeping line breaks.
 * Writes pass straight through (no buffering of its own), so lines keep their order with anything
 * written to the raw stream (the live progress line, prompts); `drain` and `error` are the target's.
 */
export function sanitizingStream(target: Writable, secrets?: { scrub(text: string): string }): Writable {
  // Secrets first: a token is replaced before anything could split or escape it.
  return mappedStream(target, secrets ? (text) => sanitizeText(secrets.scrub(text)) : sanitizeText);
}
