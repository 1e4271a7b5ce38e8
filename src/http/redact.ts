/**
 * Redaction for the `--debug` trace: bearer tokens, OAuth tokens, codes and verifiers never reach
 * stderr, whatever shape they travel in (header, form field, JSON member, URL query). It fails
 * closed: a body it cannot take apart (not JSON or a form, malformed, nested too deep) is shown as a
 * placeholder, never as it came. Every secret value it meets is handed to `learn`, so the tracer can
 * scrub that value from every later line whatever shape it turns up in.
 */
import { parseJson, stringifyJson } from '../io/json.js';
import { REDACTED, Secrets } from '../io/secrets.js';

const SECRET_KEY =
  /^(access[_-]?token|refresh[_-]?token|id[_-]?token|token|code|code[_-]?verifier|client[_-]?secret|password|assertion|api[_-]?key|authorization|proxy-authorization|cookie|set-cookie)$/i;
/**
 * A header a person adds (`rsi api -H 'X-Api-Key: …'`) can carry a secret under any name: one
 * whose name has a key, token, secret, password, auth, cookie, session, signature or credential
 * word in it is redacted too.
 */
const SECRET_HEADER =
  /(?:^|[-_])(?:api[-_]?key|key|token|secret|password|passwd|auth|authorization|cookie|session|signature|credentials?)(?:$|[-_])/i;
/** Deeper JSON is not walked (a hostile reply could blow the stack): it is not shown at all. */
const MAX_DEPTH = 64;

export type Learn = (secret: string) => void;
const ignore: Learn = () => undefined;

export function redactHeaders(headers: Record<string, string | string[] | undefined>, learn: Learn = ignore): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    if (SECRET_KEY.test(name) || SECRET_HEADER.test(name)) {
      learn(text);
      // "Bearer abc": the token alone may turn up elsewhere (a reflected body, an error).
      const scheme = /^\s*\S+\s+(\S+)\s*$/.exec(text);
      if (scheme) learn(scheme[1]!);
      out[name] = REDACTED;
    } else if (/^(content-)?location$/i.test(name)) out[name] = redactUrl(text, learn);
    else out[name] = text;
  }
  return out;
}

export function redactUrl(url: string, learn: Learn = ignore): string {
  try {
    const u = new URL(url);
    for (const key of [...u.searchParams.keys()]) {
      if (!SECRET_KEY.test(key)) continue;
      for (const v of u.searchParams.getAll(key)) learn(v);
      u.searchParams.set(key, REDACTED);
    }
    if (u.username || u.password) {
      if (u.password) learn(decodeURIComponent(u.password));
      u.username = 'redacted';
      u.password = '';
      return u.toString().replace('//redacted@', `//${REDACTED}@`);
    }
    return u.toString();
  } catch {
    return '[unparseable URL not shown]';
  }
}

/**
 * Redacts a request or response body given as text: JSON members or form fields. Anything else,
 * or anything that does not parse, becomes a placeholder naming its size and type.
 */
export function redactBody(text: string, contentType = '', learn: Learn = ignore): string {
  if (!text) return text;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const looksJson = /^\s*[[{]/.test(text);
  if (/\bjson\b/.test(type) || (!type && looksJson)) {
    try {
      return stringifyJson(redactJson(parseJson(text), learn, 0));
    } catch {
      return placeholder(text, type || 'JSON', 'could not be redacted');
    }
  }
  if (type === 'application/x-www-form-urlencoded' || (!type && /^[\w.-]+=[^&\s]*(&[\w.-]+=[^&\s]*)*$/.test(text))) {
    const form = new URLSearchParams(text);
    for (const key of [...form.keys()]) {
      if (!SECRET_KEY.test(key)) continue;
      for (const v of form.getAll(key)) learn(v);
      form.set(key, REDACTED);
    }
    return form.toString();
  }
  return placeholder(text, type || 'text', 'not shown');
}

function placeholder(text: string, type: string, why: string): string {
  return `[${Buffer.byteLength(text)} bytes of ${type} ${why}]`;
}

function redactJson(value: unknown, learn: Learn, depth: number): unknown {
  if (depth > MAX_DEPTH) throw new RangeError('too deep to redact');
  if (Array.isArray(value)) return value.map((v) => redactJson(v, learn, depth + 1));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    // Defined, not assigned: `out["__proto__"] = v` would set the prototype and the member would
    // vanish from the trace (and `constructor` must stay a plain member too).
    const put = (k: string, v: unknown): void =>
      void Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    for (const [k, v] of Object.entries(value)) {
      if (SECRET_KEY.test(k) && typeof v === 'string') {
        learn(v);
        put(k, REDACTED);
      } else if (SECRET_KEY.test(k) && v !== null && typeof v === 'object') {
        // A secret-named member holding a structure: nothing inside it is shown.
        put(k, REDACTED);
      } else put(k, redactJson(v, learn, depth + 1));
    }
    return out;
  }
  return value;
}

/**
 * The `--debug` trace: one per process, shared by the API and OAuth paths, so a token learnt in
 * one (a refresh reply, an Authorization header) is scrubbed from every line of the other; its
 * secrets are the run's (`Secrets`), so a token the trace met is scrubbed from messages too.
 */
export class Tracer {
  readonly learn: Learn;

  constructor(
    private readonly out: { write(chunk: string): unknown },
    readonly secrets: Secrets = new Secrets(),
  ) {
    this.learn = secrets.learn;
  }

  scrub(text: string): string {
    return this.secrets.scrub(text);
  }

  line(text: string): void {
    this.out.write(`${this.scrub(text)}\n`);
  }
}
