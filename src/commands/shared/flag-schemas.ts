/**
 * The zod schemas behind flag validation, in a module the commands load inside their actions.
 * zod/mini, as the reply schemas (src/client/schemas.ts): its schemas carry no methods, so building
 * one costs little. zod is imported as a static namespace and only its members are used, so the
 * bundle carries the parts rsi uses; mini has no messages of its own, so these are zod's English ones.
 */
import * as z from 'zod/mini';
import { en } from 'zod/locales';

z.config(en());

/** A whole number written as digits (sign allowed) within [min, max]. */
export function intSchema(min: number, max: number): z.ZodMiniType<number, string> {
  return z.pipe(z.pipe(z.string().check(z.trim(), z.regex(/^-?\d+$/)), z.transform(Number)), z.int().check(z.gte(min), z.lte(max)));
}

export function enumSchema<T extends string>(allowed: readonly T[]): z.ZodMiniType<T> {
  return z.enum(allowed as unknown as [T, ...T[]]) as unknown as z.ZodMiniType<T>;
}

/** A number, or text that reads as one, that is a whole number within [min, max]. */
export function coercedIntSchema(min: number, max: number): z.ZodMiniType<number, unknown> {
  return z.pipe(z.coerce.number(), z.int().check(z.gte(min), z.lte(max)));
}

/** A watchlist file: an array of keyword names (or ids) and scope items. */
export function watchlistSchema<I>(scopeItem: z.ZodMiniType<I>): z.ZodMiniType<(string | I)[]> {
  return z.array(z.union([z.string().check(z.trim(), z.minLength(1)), scopeItem]));
}
