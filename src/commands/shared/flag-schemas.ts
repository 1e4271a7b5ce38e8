/**
 * The zod schemas behind flag validation, in a module the commands load inside their actions.
 * zod is imported here as a static namespace and only its members are used, so the bundle
 * carries the parts of zod rsi uses; a dynamic import of zod (or `import { z }`) keeps the whole
 * namespace, every locale included, about 4× the code.
 */
import * as z from 'zod';

/** A whole number written as digits (sign allowed) within [min, max]. */
export function intSchema(min: number, max: number): z.ZodType<number, string> {
  return z
    .string()
    .trim()
    .regex(/^-?\d+$/)
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
}

export function enumSchema<T extends string>(allowed: readonly T[]): z.ZodType<T> {
  return z.enum(allowed as unknown as [T, ...T[]]) as unknown as z.ZodType<T>;
}

/** A number, or text that reads as one, that is a whole number within [min, max]. */
export function coercedIntSchema(min: number, max: number): z.ZodType<number, unknown> {
  return z.coerce.number().int().min(min).max(max);
}

/** A watchlist file: an array of keyword names (or ids) and scope items. */
export function watchlistSchema<I>(scopeItem: z.ZodType<I>): z.ZodType<(string | I)[]> {
  return z.array(z.union([z.string().trim().min(1), scopeItem]));
}
