/**
 * The error for a reply that is not JSON where JSON is expected (a typed command, `rsi api` with
 * `--json`, `--jq`, `--fields` or `--paginate`): exit 1, one line naming the content type and the
 * start of the body, so a login page or a proxy's notice is recognisable without `--debug`. The
 * body's start is cut and put on one line here; main.ts escapes its control characters, as it does
 * for every error line.
 */
import { UnexpectedReplyError } from '../errors.js';

/** How much of the body the message quotes, in characters. */
const SHOWN = 80;

/**
 * The body's start in double quotes with every character that would not show as itself escaped,
 * in the sanitiser's forms (src/io/sanitize.ts): `\n`, `\r`, `\t`, `\"`, `\\`, `\x1b` for
 * other controls, `\uXXXX` for the invisible and space-like characters a person could not tell
 * apart (a byte-order mark, a no-break space, zero-width and bidi characters, line and paragraph
 * separators) and for unpaired surrogates. Nothing is squashed or trimmed: `\ufeff{}` is not shown
 * as `{}`, two spaces are two spaces.
 */
export function quoteExactly(text: string): string {
  const named: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '"': '\\"', '\\': '\\\\' };
  const shown = text.replace(
    /[\u0000-\u001f"\\\u007f-\u00a0\u00ad\u061c\u115f\u1160\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\u3164\ufeff\uffa0\ufff9-\ufffb]|\u034f|[\ufe00-\ufe0f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (c) => {
      const code = c.charCodeAt(0);
      if (named[c]) return named[c];
      if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return `\\x${code.toString(16).padStart(2, '0')}`;
      return `\\u${code.toString(16).padStart(4, '0')}`;
    },
  );
  return `"${shown}"`;
}

export function notJsonError(res: { status: number; text: string; headers: Record<string, string> }, what: string): UnexpectedReplyError {
  const type = (res.headers['content-type'] ?? '').split(';')[0]!.trim();
  const kind = type === '' ? 'no content type' : type;
  if (res.text === '')
    return new UnexpectedReplyError(`unexpected reply from ${what}: ${res.status} with an empty body (${kind}), not JSON`);
  const chars = [...res.text];
  const start = `${quoteExactly(chars.slice(0, SHOWN).join(''))}${chars.length > SHOWN ? '…' : ''}`;
  const why = /\bjson\b/i.test(type) ? 'that does not parse as JSON' : 'not JSON';
  return new UnexpectedReplyError(`unexpected reply from ${what}: ${res.status} ${kind} ${why}: ${start}`, {
    hint: 'the service, or a proxy or sign-in page in front of it, answered something other than JSON; run with --debug to see it',
  });
}
