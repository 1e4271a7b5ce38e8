/**
 * The API's request limits (service-api.md, "Limits"), declared once: the commands' flags check
 * them and say them in help, the MCP server's tools put them in their input schemas, and the
 * client's request schemas hold a body to them. Plain data, zod-free, so help loads nothing more.
 */

/** A limit of a request parameter: its range, and the service's default where it has one. */
export interface Limit {
  readonly min: number;
  readonly max?: number | undefined;
  readonly default?: number | undefined;
}

export const LIMITS = {
  /** `GET /keywords/search?limit=`. */
  searchLimit: { min: 1, max: 20, default: 10 },
  /** `GET /keywords/search?page=`. */
  searchPage: { min: 1, default: 1 },
  /** `GET /keywords/{id}/relations?limit=`. */
  relationsLimit: { min: 1, max: 100, default: 20 },
  /** `GET /keywords/{id}/relations?offset=`. */
  relationsOffset: { min: 0, default: 0 },
  /** `GET /projects/{id}/signals?limit=`. */
  signalsLimit: { min: 1, max: 500, default: 100 },
  /** `POST /projects/{id}/analyses`, `top.limit`. */
  topLimit: { min: 1, max: 100 },
} as const satisfies Record<string, Limit>;

/** A limit as help and tool descriptions say it: `1 to 20 (default 10)`, or `1-20 (default 10)` with `sep` '-'. */
export function rangeText(limit: Limit, sep = ' to '): string {
  const range = limit.max === undefined ? `from ${limit.min}` : `${limit.min}${sep}${limit.max}`;
  return limit.default === undefined ? range : `${range} (default ${limit.default})`;
}
