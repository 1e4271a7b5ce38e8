/**
 * The one fence rule of `rsi mcp serve`: text that came from the service (names, briefs, summaries,
 * an `assumption`, error texts, the names a did-you-mean hint lists) reaches the model only inside
 * a `<service-data>` fence, escaped so that nothing in it can close the fence or open another tag.
 * rsi's own sentences stay outside, so the model can tell who is speaking. Every path that puts
 * service text into a tool result, a note, a question, an error or a hint goes through `fence`.
 *
 * - JSON inside a fence: `<`, `>` and `&` become `\u003c`, `\u003e`, `\u0026` (they can only occur
 *   inside JSON strings, so the text still parses to the same value), a `"` is JSON's own `\"`.
 * - Plain text inside a fence: `&`, `<` and `>` become `&amp;`, `&lt;`, `&gt;`. A `"` stays: it
 *   cannot close the fence or open a tag (the fence's attributes are rsi's own words), and a
 *   suggested command or a question shown to a person must read as written (`rsi status "My
 *   project"`, not `&quot;My project&quot;`, which pasted into a shell is another command).
 * - Both: invisible or reordering characters are written as `\uXXXX`, so they show.
 */

/**
 * Invisible or reordering characters: format characters (Cf: zero-width, bidi controls, soft
 * hyphen, the tag block U+E0001/E0020–E007F), the rest of the tag block (U+E0000–E007F), C0/C1
 * controls and the line/paragraph separators.
 */
const INVISIBLE = /[\p{Cf}\p{Cc}\u2028\u2029\u{E0000}-\u{E007F}]/gu;

/** Each invisible character as its `\uXXXX` escape (surrogate pairs above U+FFFF). */
export function escapeInvisible(text: string): string {
  return text.replace(INVISIBLE, (ch) =>
    [...ch]
      .flatMap((c) => {
        const cp = c.codePointAt(0)!;
        if (cp <= 0xffff) return [cp];
        const v = cp - 0x10000;
        return [0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff)];
      })
      .map((u) => `\\u${u.toString(16).padStart(4, '0')}`)
      .join(''),
  );
}

/** JSON text that parses to `value` and holds no `<`, `>`, `&` or invisible character. */
export function escapeJson(value: unknown): string {
  return escapeInvisible(JSON.stringify(value) ?? 'null')
    .replaceAll('<', '\\u003c')
    .replaceAll('>', '\\u003e')
    .replaceAll('&', '\\u0026');
}

/** Plain text with `&<>` as character references and invisible characters shown. Newlines stay. */
export function escapeText(text: string): string {
  return text
    .split('\n')
    .map((line) => escapeInvisible(line).replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;'))
    .join('\n');
}

/** What a fence holds: service data as JSON, or text (a question, an error) that quotes the service. */
export type FenceBody = { json: unknown } | { text: string };

/**
 * The fence: `<service-data tool="…" part="…">`, the escaped body, `</service-data>`. The tool and
 * part are rsi's own words (checked: lower-case words only), never the service's.
 */
export function fence(tool: string, body: FenceBody, part?: 'question' | 'error' | 'command'): string {
  for (const word of [tool, part ?? '']) {
    if (!/^[a-z_]*$/.test(word)) throw new Error(`fence label is not one of rsi's own words: ${JSON.stringify(word)}`);
  }
  const inner = 'json' in body ? escapeJson(body.json) : escapeText(body.text);
  return `<service-data tool="${tool}"${part ? ` part="${part}"` : ''}>\n${inner}\n</service-data>`;
}

/** Service text for rsi's own composed question or message: one line, cut at `max` characters (not yet escaped). */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
