/**
 * The zod schemas behind flag validation, in a module the commands load inside their actions.
 * zod is imported as a static namespace and only its members are used, so the bundle carries the
 * parts of zod rsi uses; a dynamic import of zod (or `import { z }`) keeps the whole namespace,
 * every locale included, about 4× the code. It is zod/mini, like every module on a request's path:
 * classic zod costs more CPU per schema built (docs/performance.md, "zod on the request path").
 */
import { en } from 'zod/locales';
import * as z from 'zod/mini';

// The watchlist error quotes zod's message; zod/mini registers no locale by itself (see schemas.ts).
if (!z.config().localeError) z.config(en());

/** A whole number written as digits (sign allowed) within [min, max]. */
export function intSchema(min: number, max: number): z.ZodMiniType<number, string> {
  return z.pipe(
    z.pipe(z.string().check(z.trim(), z.regex(/^-?\d+$/)), z.transform(Number)),
    z.number().check(z.int(), z.gte(min), z.lte(max)),
  );
}

export function enumSchema<T extends string>(allowed: readonly T[]): z.ZodMiniType<T> {
  return z.enum(allowed as unknown as [T, ...T[]]) as unknown as z.ZodMiniType<T>;
}

/** A number, or text that reads as one, that is a whole number within [min, max]. */
export function coercedIntSchema(min: number, max: number): z.ZodMiniType<number, unknown> {
  return z.coerce.number().check(z.int(), z.gte(min), z.lte(max));
}

/** A watchlist file: an array of keyword names (or ids) and scope items. */
export function watchlistSchema<I>(scopeItem: z.ZodMiniType<I>): z.ZodMiniType<(string | I)[]> {
  return z.array(z.union([z.string().check(z.trim(), z.minLength(1)), scopeItem]));
}
