/**
 * `WWW-Authenticate` as OAuth resources use it (RFC 6750 §3, RFC 9728 §5.1): shared by the MCP
 * sign-in's discovery (auth/) and the MCP client's scope challenges (mcp/).
 */

/**
 * The `Bearer` challenge's parameters from a `WWW-Authenticate` value, which may carry several
 * challenges (`Basic realm="x", Bearer scope="a b"`): quoted strings with backslash escapes, or
 * tokens. Undefined when there is no Bearer challenge.
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-11.6.1
 */
export function parseBearerChallenge(header: string | null | undefined): Record<string, string> | undefined {
  if (!header) return undefined;
  let i = 0;
  const n = header.length;
  let params: Record<string, string> | undefined;
  let inBearer = false;
  const skip = (re: RegExp): void => {
    while (i < n && re.test(header[i]!)) i++;
  };
  while (i < n) {
    skip(/[\s,]/);
    const start = i;
    skip(/[!#$%&'*+.^_`|~0-9A-Za-z-]/);
    const token = header.slice(start, i);
    if (!token) {
      i++;
      continue;
    }
    skip(/[ \t]/);
    if (header[i] === '=') {
      // An auth-param of the current challenge.
      i++;
      skip(/[ \t]/);
      let value = '';
      if (header[i] === '"') {
        i++;
        while (i < n && header[i] !== '"') {
          if (header[i] === '\\' && i + 1 < n) i++;
          value += header[i++];
        }
        i++;
      } else {
        const v = i;
        while (i < n && header[i] !== ',' && !/\s/.test(header[i]!)) i++;
        value = header.slice(v, i);
      }
      if (inBearer && params) params[token.toLowerCase()] = value;
    } else {
      // A new challenge's scheme (token68 values are not used by Bearer).
      inBearer = token.toLowerCase() === 'bearer';
      if (inBearer) params = {};
      else if (params) break;
    }
  }
  return params;
}
