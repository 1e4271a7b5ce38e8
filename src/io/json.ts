/**
 * JSON in and out, exact. Two things JSON.parse/JSON.stringify alone get wrong for rsi:
 *
 * - **Integers beyond 2^53.** JSON.parse rounds `12345678901234567891` to the nearest double, so
 *   `rsi api` and `--json` would print a number the service never sent. Node 20 has no
 *   `context.source` in revivers and no `JSON.rawJSON`, so `parseJson` keeps the digits of every
 *   integer literal that does not survive the round trip in a process-wide table keyed by the
 *   double it rounds to, and `stringifyJson` writes those digits back wherever that double appears.
 *   The value stays a plain number for everything else (schemas, tables, arithmetic). Two different
 *   literals that round to the same double make that double ambiguous: it is then printed as JSON
 *   prints it, never as the other literal.
 * - **Characters a terminal hides or obeys.** JSON.stringify writes C1 controls, bidi controls and
 *   invisible format characters raw; on a terminal they reorder or hide text. `stringifyJson`
 *   writes each as a `\uXXXX` escape (surrogate pairs for the tag block): still valid JSON, the same
 *   value after parsing, and nothing left for a terminal to act on.
 */

/** Unsafe integer literals seen in replies: the double they round to → the digits sent (or null if ambiguous). */
const exact = new Map<number, string | null>();

/** A number token, or a string token to skip (so digits inside strings are never taken). */
const TOKEN = /"(?:[^"\\]|\\.)*"|(?<![\d.eE+-])-?\d{16,}(?![.eE\d])/g;

/** JSON.parse, remembering the exact digits of integers that a double cannot hold. */
export function parseJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  // Only a run of 16+ digits can be an unsafe integer; most replies have none.
  if (/\d{16}/.test(text)) {
    for (const m of text.matchAll(TOKEN)) {
      const token = m[0];
      if (token.startsWith('"')) continue;
      const rounded = Number(token);
      if (Number.isSafeInteger(rounded) || String(rounded) === token) continue;
      const known = exact.get(rounded);
      const digits = token;
      if (known === undefined) exact.set(rounded, digits);
      else if (known !== digits) exact.set(rounded, null);
    }
  }
  return value;
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

/** A marker no reply can forge: it holds a random part chosen per process. */
let marker: string | undefined;

/**
 * JSON.stringify for output: same value, unsafe integers as the service sent them, hidden and
 * deceptive characters as `\uXXXX`. `indent` as JSON.stringify's third argument.
 */
export function stringifyJson(value: unknown, indent?: number): string {
  let json: string;
  if (exact.size > 0) {
    marker ??= `rsi-exact-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}:`;
    const m = marker;
    let used = false;
    json = JSON.stringify(
      value,
      (_key, v: unknown) => {
        if (typeof v === 'number' && !Number.isSafeInteger(v)) {
          const digits = exact.get(v);
          if (digits) {
            used = true;
            return `${m}${digits}`;
          }
        }
        return v;
      },
      indent,
    );
    if (used) json = json.replace(new RegExp(`"${m}(-?\\d+)"`, 'g'), '$1');
  } else {
    json = JSON.stringify(value, null, indent);
  }
  // undefined (a function, undefined itself) stays undefined, as JSON.stringify has it.
  return json === undefined ? json : json.replace(HIDDEN, escapeHidden);
}
