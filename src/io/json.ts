/**
 * JSON in and out, exact, at any depth. What JSON.parse/JSON.stringify alone get wrong for rsi:
 *
 * - **Numbers as the service spelled them.** JSON.parse turns `1.10` into 1.1, `1e2` into 100,
 *   `-0` into 0 and `12345678901234567891` into the nearest double, so `--json`, NDJSON, CSV and TSV
 *   would print numbers the service never sent. `parseJson` keeps the literal of every number whose
 *   JavaScript spelling differs (JSON.parse's reviver `context.source`, Node ≥ 22), and the value
 *   stays a plain number for schemas, tables and arithmetic. The literal is kept twice:
 *   - by position (the object or array holding it, and its key), which is exact: `stringifyJson`
 *     writes it back there with `JSON.rawJSON`;
 *   - by value (the double → the literal), for copies of the reply that lost the position (a schema
 *     that rebuilds objects, a cell taken out of its row). A double the service spelled two ways
 *     (`1.1` and `1.10`), or also plainly, is ambiguous there and printed as JavaScript prints it.
 *   Only a reply that may hold such a literal pays for the reviver (`SUSPECT`), and every reply after
 *   it in the same process: the common reply is parsed by JSON.parse alone.
 * - **Depth.** JSON.stringify, and JSON.parse with a reviver, recurse once per level and throw
 *   "Maximum call stack size exceeded" on a reply nested some thousands deep. `stringifyJson` falls
 *   back to an iterative writer (`writeDeep`, compact even on a terminal) when that happens, and `parseJson` to a reviver-free
 *   parse with a token scan, so any depth that fits in memory prints.
 * - **Characters a terminal hides or obeys.** JSON.stringify writes C1 controls, bidi controls and
 *   invisible format characters raw; on a terminal they reorder or hide text. `stringifyJson`
 *   writes each as a `\uXXXX` escape (surrogate pairs for the tag block): still valid JSON, the same
 *   value after parsing, and nothing left for a terminal to act on.
 */

/** Literals by position: the holder (object or array) → its key → the literal sent. */
const byPosition = new WeakMap<object, Map<string, string>>();
/**
 * Literals by value, for the literals whose double is another number (more than 15 significant
 * digits): the double → the one literal sent for it, or null when it was spelled several ways.
 * A literal that only spells its number otherwise (`1.10`, `1e2`, `-0`) is kept by position only:
 * by value it would turn up in numbers rsi makes itself (a count of 100 printed `1e2`).
 */
const byValue = new Map<number, string | null>();
/** Whether any literal was kept (by position or by value) in this process: stringifyJson's replacer is needed. */
let keptAny = false;

/** Whether a literal names a number a double cannot hold: more than 15 significant digits. */
function lossy(literal: string): boolean {
  const mantissa = literal
    .replace(/^-/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '');
  return mantissa.replace(/^0+/, '').replace(/0+$/, '').length > 15;
}

/**
 * A number with the literal the service sent for it, as a cell carries it (src/io/columns.ts): its
 * text is the literal; as JSON it is the literal again.
 */
export class ExactNumber {
  constructor(
    readonly value: number,
    readonly literal: string,
  ) {}
  toJSON(): unknown {
    return rawJSON === undefined ? this.value : rawJSON(this.literal);
  }
}

/** The literal sent at `holder[key]` for the number there, if it is known by position. */
export function literalAt(holder: object, key: string): string | undefined {
  const source = byPosition.get(holder)?.get(key);
  const value = (holder as Record<string, unknown>)[key];
  return source !== undefined && typeof value === 'number' && Object.is(Number(source), value) ? source : undefined;
}

/** Whether any literal has been kept by position (cells need not look for one otherwise). */
export function keptLiterals(): boolean {
  return keptAny;
}

/**
 * A number literal JavaScript may spell otherwise: 16 or more digits, six zeros after a point
 * (`0.0000001` is `1e-7`), or, followed by the end of a value, a trailing zero after a point, an
 * exponent or a negative zero. Inside a string only the digit runs can match (the others need a
 * `,` `]` `}` or the end after them), which costs a slower parse, never a wrong one.
 */
const SUSPECT = /\d(?:\.?\d){15}|\.0{6}|(?:\.\d*0|\d[eE][+-]?\d+|(?<![\d.])-0)(?=\s*(?:[,\]}]|$))/;

type Reviver = (this: unknown, key: string, value: unknown, context?: { source?: string }) => unknown;

/** JSON.parse, remembering the literal of every number that JavaScript would print otherwise. */
export function parseJson(text: string): unknown {
  // Once a literal is kept by value, every later reply goes through the reviver too, so a plain
  // spelling of the same double there makes it ambiguous instead of borrowing the other's literal.
  if (byValue.size === 0 && !SUSPECT.test(text)) return JSON.parse(text);
  const plain = new Set<number>();
  const kept: Array<[number, string]> = [];
  const reviver: Reviver = function (key, value, context) {
    if (typeof value !== 'number') return value;
    const source = context?.source;
    if (source === undefined || source === String(value)) plain.add(value);
    else {
      const holder = this as object;
      let at = byPosition.get(holder);
      if (!at) byPosition.set(holder, (at = new Map()));
      at.set(key, source);
      keptAny = true;
      if (lossy(source)) kept.push([value, source]);
    }
    return value;
  };
  let value: unknown;
  try {
    value = JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
  } catch (error) {
    // The reviver recursed too deep: parse without it, and keep the literals by value only.
    if (!(error instanceof RangeError)) throw error;
    value = JSON.parse(text);
    scanLiterals(text, plain, kept);
    for (let i = kept.length - 1; i >= 0; i--) if (!lossy(kept[i]![1])) kept.splice(i, 1);
  }
  for (const n of plain) if (byValue.has(n)) byValue.set(n, null);
  for (const [n, source] of kept) {
    const known = byValue.get(n);
    if (plain.has(n) || (known !== undefined && known !== source)) byValue.set(n, null);
    else byValue.set(n, source);
    keptAny = true;
  }
  return value;
}

/** Every number token outside strings, sorted into plain spellings and kept literals. */
function scanLiterals(text: string, plain: Set<number>, kept: Array<[number, string]>): void {
  for (const m of text.matchAll(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g)) {
    const token = m[0];
    if (token.startsWith('"')) continue;
    const n = Number(token);
    if (String(n) === token) plain.add(n);
    else kept.push([n, token]);
  }
}

/** The literal the service sent for `value`, held at `holder[key]` (when known), else by value alone. */
export function numberLiteral(value: number, holder?: object, key?: string): string | undefined {
  const source =
    (holder !== undefined && key !== undefined ? byPosition.get(holder)?.get(key) : undefined) ?? byValue.get(value) ?? undefined;
  // The holder may have been changed since: a literal is used only for the number it spells.
  return source !== undefined && Object.is(Number(source), value) ? source : undefined;
}

/** A number as text for a cell: the service's literal when known, else JavaScript's spelling. */
export function numberText(value: number): string {
  return numberLiteral(value) ?? String(value);
}

/** Carries the literals of `from`'s members to the same members of `to` (a copy such as a `--fields` pick). */
export function keepLiterals(from: object, to: object): void {
  const at = byPosition.get(from);
  if (!at) return;
  const copy = new Map<string, string>();
  for (const [k, source] of at) if (Object.hasOwn(to, k)) copy.set(k, source);
  if (copy.size > 0) {
    const existing = byPosition.get(to);
    if (existing) for (const [k, source] of copy) existing.set(k, source);
    else byPosition.set(to, copy);
  }
}

/** The literal sent for `from[key]`, kept for the same number at `to[toKey]` (a member put under another key). */
export function keepLiteralAs(from: object, key: string, to: object, toKey: string): void {
  const source = byPosition.get(from)?.get(key);
  if (source === undefined) return;
  const existing = byPosition.get(to);
  if (existing) existing.set(toKey, source);
  else byPosition.set(to, new Map([[toKey, source]]));
}

/**
 * Carries the literals of a parsed reply to a rebuilt copy of it (a schema's output: same members,
 * new objects), member by member, so the copy prints as the reply did. Iterative, any depth;
 * nothing to do in a process that has kept no literal.
 */
export function carryLiterals(from: unknown, to: unknown): void {
  if (!keptAny) return;
  const pairs: Array<[unknown, unknown]> = [[from, to]];
  while (pairs.length > 0) {
    const [f, t] = pairs.pop()!;
    if (f === t || f === null || t === null || typeof f !== 'object' || typeof t !== 'object') continue;
    if (Array.isArray(f) !== Array.isArray(t)) continue;
    keepLiterals(f, t);
    for (const k of Object.keys(f)) {
      const fv = (f as Record<string, unknown>)[k];
      if (fv !== null && typeof fv === 'object' && Object.hasOwn(t, k)) pairs.push([fv, (t as Record<string, unknown>)[k]]);
    }
  }
}

const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

/** JSON.stringify's replacer that writes kept literals back (`this` is the holder). */
function literalReplacer(this: unknown, key: string, value: unknown): unknown {
  if (typeof value !== 'number') return value;
  const source = numberLiteral(value, this as object, key);
  return source === undefined ? value : rawJSON(source);
}

/**
 * C1 controls, DEL, every format character (bidi, zero-width, soft hyphen, BOM, tags), the
 * line/paragraph separators and the blank-drawing fillers the sanitiser also shows. JSON.stringify
 * already escapes C0.
 */
// biome-ignore lint/suspicious/noMisleadingCharacterClass: each member is matched alone, on purpose
const HIDDEN = /[\u007f-\u009f\p{Cf}\u2028\u2029\u034f\u115f\u1160\u3164\uffa0\u{e0000}-\u{e007f}]/gu;

function escapeHidden(ch: string): string {
  let out = '';
  for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/**
 * JSON text written by something else (jq's output for `--jq`) with the same escapes stringifyJson
 * writes: those characters only occur inside strings there, so the value is unchanged.
 */
export function escapeHiddenJson(json: string): string {
  return json.replace(HIDDEN, escapeHidden);
}

/**
 * JSON.stringify for output: same value, numbers as the service spelled them, hidden and
 * deceptive characters as `\uXXXX`, any depth. `indent` as JSON.stringify's third argument.
 */
export function stringifyJson(value: unknown, indent?: number): string {
  const exact = keptAny && rawJSON !== undefined;
  let json: string;
  try {
    json = exact ? JSON.stringify(value, literalReplacer, indent) : JSON.stringify(value, null, indent);
  } catch (error) {
    // JSON.stringify recurses once per level: a deep reply overflows the stack. Write it without,
    // and compact: indenting 100,000 levels would take gigabytes of spaces.
    if (!(error instanceof RangeError) || !/call stack/i.test(error.message)) throw error;
    json = writeDeep(value, 0, exact);
  }
  // undefined (a function, undefined itself) stays undefined, as JSON.stringify has it.
  return json === undefined ? json : json.replace(HIDDEN, escapeHidden);
}

/** One open object or array of `writeDeep`: its members left to write. */
interface Frame {
  holder: object;
  keys: string[] | undefined;
  next: number;
  wrote: number;
}

/**
 * JSON.stringify without recursion, for values too deep for it: the same text (members in order,
 * `undefined` and functions left out of objects and `null` in arrays, `toJSON` applied, non-finite
 * numbers as `null`, kept literals when `exact`), with a stack of frames on the heap instead of the
 * call stack. Only plain JSON values (what parseJson returns) are expected here.
 */
export function writeDeep(root: unknown, indent: number, exact: boolean): string {
  const parts: string[] = [];
  const stack: Frame[] = [];
  const pad = (depth: number): string => (indent > 0 ? `\n${' '.repeat(indent * depth)}` : '');
  const colon = indent > 0 ? ': ' : ':';
  /** Writes a value, or opens it (pushing a frame); false for a member to leave out. */
  const put = (holder: object, key: string, raw: unknown, inArray: boolean, prefix: string): boolean => {
    let value = raw;
    if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function')
      value = (value as { toJSON(key: string): unknown }).toJSON(key);
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') {
      if (!inArray) return false;
      value = null;
    }
    parts.push(prefix);
    if (typeof value === 'number') {
      const source = exact ? numberLiteral(value, holder, key) : undefined;
      parts.push(source ?? (Number.isFinite(value) ? String(value) : 'null'));
    } else if (typeof value === 'bigint') throw new TypeError('Do not know how to serialize a BigInt');
    else if (value === null || typeof value !== 'object') parts.push(JSON.stringify(value));
    else if (Array.isArray(value)) {
      parts.push('[');
      stack.push({ holder: value, keys: undefined, next: 0, wrote: 0 });
    } else {
      parts.push('{');
      stack.push({ holder: value, keys: Object.keys(value), next: 0, wrote: 0 });
    }
    return true;
  };
  put({ '': root }, '', root, true, '');
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const depth = stack.length;
    const array = frame.keys === undefined;
    const length = array ? (frame.holder as unknown[]).length : frame.keys!.length;
    if (frame.next >= length) {
      stack.pop();
      parts.push(`${frame.wrote > 0 ? pad(depth - 1) : ''}${array ? ']' : '}'}`);
      continue;
    }
    const i = frame.next++;
    const key = array ? String(i) : frame.keys![i]!;
    const prefix = `${frame.wrote > 0 ? ',' : ''}${pad(depth)}${array ? '' : `${JSON.stringify(key)}${colon}`}`;
    if (put(frame.holder, key, (frame.holder as Record<string, unknown>)[key], array, prefix)) frame.wrote++;
  }
  return parts.join('');
}
