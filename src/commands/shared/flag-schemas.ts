/**
 * The zod schemas behind what a flag's file holds (`--watchlist-file`), in a module the commands
 * load inside their actions; the flags themselves are checked zod-free (src/commands/shared/options.ts).
 * zod/mini, as the reply schemas (src/client/schemas.ts): its schemas carry no methods, so building
 * one costs little. zod is imported as a static namespace and only its members are used, so the
 * bundle carries the parts rsi uses; mini has no messages of its own, so these are zod's English ones.
 */
import * as z from 'zod/mini';
import { en } from 'zod/locales';

z.config(en());

/** A watchlist file: an array of keyword names (or ids) and scope items. */
export function watchlistSchema<I>(scopeItem: z.ZodMiniType<I>): z.ZodMiniType<(string | I)[]> {
  return z.array(z.union([z.string().check(z.trim(), z.minLength(1)), scopeItem]));
}
