/**
 * Redirects on API requests. rsi follows only what cannot move a credential or change a request's
 * meaning: a 307 or 308 (which keep method and body, unlike 301, 302 and 303, which turn a POST
 * into a GET) on an idempotent request, to the same origin (scheme, host and port: the
 * Authorization header is only ever sent where it was meant to go), at most MAX_REDIRECTS times.
 * Anything else ends the command with one line naming the status and where it led.
 */
import { UnexpectedReplyError } from '../errors.js';
import { redactUrl } from './redact.js';
import { isIdempotent } from './resend.js';
import { suggest } from '../io/text.js';

/** Redirects followed for one request: enough for a moved path, few enough to stop a loop soon. */
export const MAX_REDIRECTS = 5;

interface Reply {
  status: number;
  headers: Record<string, string>;
}

function locationOf(from: URL, res: Reply): URL | undefined {
  const location = res.headers.location;
  if (!location) return undefined;
  try {
    return new URL(location, from);
  } catch {
    return undefined;
  }
}

/** Where the redirect leads, when rsi follows it; undefined when it does not. */
export function followableRedirect(method: string, from: URL, res: Reply): URL | undefined {
  if ((res.status !== 307 && res.status !== 308) || !isIdempotent(method)) return undefined;
  const target = locationOf(from, res);
  return target && target.origin === from.origin && !target.username && !target.password ? target : undefined;
}

const STATUS_TEXT: Record<number, string> = {
  300: 'Multiple Choices',
  301: 'Moved Permanently',
  302: 'Found',
  303: 'See Other',
  304: 'Not Modified',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
};

/**
 * The error for a 3xx rsi did not follow (`what` is "METHOD /path"; `hops` the redirects already
 * followed). The target is shown without user info or secret-looking query parameters, cut to a
 * readable length; the terminal sanitiser escapes whatever else it holds.
 */
export function unfollowedRedirect(what: string, res: Reply & { url?: string | undefined }, hops: number): UnexpectedReplyError {
  const method = what.split(' ')[0] ?? 'GET';
  const from = res.url ? new URL(res.url) : undefined;
  const target = from ? locationOf(from, res) : undefined;
  const status = `${res.status}${STATUS_TEXT[res.status] ? ` ${STATUS_TEXT[res.status]}` : ''}`;
  const ownCredentials = !!(target?.username || target?.password);
  let shown: string;
  if (target) {
    target.username = '';
    target.password = '';
    shown = redactUrl(target.href);
  } else shown = res.headers.location ? 'an address that is not a URL' : 'no Location';
  if (shown.length > 200) shown = `${shown.slice(0, 200)}…`;
  let why: string;
  if (!target) why = 'there is nowhere to follow it to';
  else if (hops >= MAX_REDIRECTS) why = `rsi follows at most ${MAX_REDIRECTS} redirects`;
  else if (from && target.protocol !== from.protocol) why = 'it changes the scheme';
  else if (from && target.origin !== from.origin) why = 'it leads to another host, which must not receive your sign-in';
  else if (ownCredentials) why = 'the target carries credentials of its own';
  else if (res.status !== 307 && res.status !== 308) why = 'rsi follows only 307 and 308, which keep the method and body';
  else why = `rsi does not repeat a ${method} at another address`;
  const moved = target && from && target.origin !== from.origin;
  return new UnexpectedReplyError(`${what} was redirected (${status}) to ${shown}; not followed: ${why}`, {
    hint: moved
      ? 'if the service has moved, sign in at its new address: rsi login --base-url <new address>'
      : `the service may have moved that path; ${suggest(['rsi', 'api', '-i', method, what.slice(method.length + 1)])} shows the reply`,
  });
}
