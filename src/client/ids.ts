/**
 * The spec's ids (projects, keywords, runs) are UUIDs. The one pattern every layer checks them
 * with: resolving a name or an id, building a path, parsing a reply. (The sandbox keeps its own
 * copy: it imports nothing of rsi.)
 */
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}
