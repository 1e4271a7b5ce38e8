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

export function notJsonError(res: { status: number; text: string; headers: Record<string, string> }, what: string): UnexpectedReplyError {
  const type = (res.headers['content-type'] ?? '').split(';')[0]!.trim();
  const kind = type === '' ? 'no content type' : type;
  if (res.text.trim() === '')
    return new UnexpectedReplyError(`unexpected reply from ${what}: ${res.status} with an empty body (${kind}), not JSON`);
  const chars = [...res.text.replace(/\s+/g, ' ').trim()];
  const start = chars.length > SHOWN ? `${chars.slice(0, SHOWN).join('')}…` : chars.join('');
  const why = /\bjson\b/i.test(type) ? 'that does not parse as JSON' : 'not JSON';
  return new UnexpectedReplyError(`unexpected reply from ${what}: ${res.status} ${kind} ${why}: "${start}"`, {
    hint: 'the service, or a proxy or sign-in page in front of it, answered something other than JSON; run with --debug to see it',
  });
}
