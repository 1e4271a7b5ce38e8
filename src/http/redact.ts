/**
 * Redaction for the `--debug` trace: bearer tokens, OAuth tokens, codes and verifiers never reach
 * stderr, whatever shape they travel in (header, form field, JSON member, URL query).
 */

const SECRET_KEY =
  /^(access_token|refresh_token|id_token|token|code|code_verifier|client_secret|password|authorization|cookie|set-cookie)$/i;
const REDACTED = '[redacted]';

export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = SECRET_KEY.test(name) ? REDACTED : Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    for (const key of [...u.searchParams.keys()]) if (SECRET_KEY.test(key)) u.searchParams.set(key, REDACTED);
    return u.toString();
  } catch {
    return url;
  }
}

/** Redacts a request or response body given as text: JSON members or form fields. */
export function redactBody(text: string, contentType = ''): string {
  if (!text) return text;
  if (contentType.includes('json') || /^\s*[[{]/.test(text)) {
    try {
      return JSON.stringify(redactJson(JSON.parse(text)));
    } catch {
      // fall through: not JSON after all
    }
  }
  if (contentType.includes('x-www-form-urlencoded') || /^[\w.-]+=[^&\s]*(&[\w.-]+=[^&\s]*)*$/.test(text)) {
    const form = new URLSearchParams(text);
    for (const key of [...form.keys()]) if (SECRET_KEY.test(key)) form.set(key, REDACTED);
    return form.toString();
  }
  return text;
}

function redactJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactJson);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) && typeof v === 'string' ? REDACTED : redactJson(v);
    return out;
  }
  return value;
}
