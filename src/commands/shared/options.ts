/**
 * A command's options as data (wrangler's `args`, the MCP SDK's input shape): each option's flag,
 * its help, and its parser (`int(LIMITS.searchLimit)`, `oneOf(ANALYSIS_MODES)`, `text()`, `on()`),
 * from which the commander options are added and the typed options are read, so the options type
 * is inferred from the declaration (`OptionsOf<typeof OPTIONS>`) and never written beside it.
 * Zod-free and synchronous: a bad value is a UsageError naming the flag, before any request.
 */
import type { Command } from 'commander';
import type { Limit } from '../../client/limits.js';
import { UsageError } from '../../errors.js';
import { collect, enumFlag, intFlag, nonEmpty } from './flags.js';

/** What a flag's value must be, checked at the boundary. */
export interface Parser<T> {
  /** The value of what commander gave (`raw`), named `flag` in the error when it is not one. */
  parse(flag: string, raw: unknown): T;
  /** The flag may be repeated: commander gives every occurrence, in order (`--include a --include b`). */
  repeated?: true;
}

/** An option: its flags as commander takes them (`--limit <n>`), its help, and its parser. */
export interface OptionSpec<T = unknown> {
  flags: string;
  description: string;
  parse: Parser<T>;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** The typed options a set of specs gives: `{ limit: number | undefined; all: boolean }`. */
export type OptionsOf<S extends OptionSpecs> = { -readonly [K in keyof S]: S[K] extends OptionSpec<infer T> ? T : never };

/** An integer within an API limit (src/client/limits.ts) or [min, max]; undefined when not given. */
export function int(limit: Limit | number, max?: number): Parser<number | undefined> {
  const { min, max: top } = typeof limit === 'number' ? { min: limit, max } : limit;
  return { parse: (flag, raw) => intFlag(flag, raw, min, top) };
}

/** One of `values`, exactly; undefined when not given. */
export function oneOf<T extends string>(values: readonly T[]): Parser<T | undefined> {
  return { parse: (flag, raw) => enumFlag(flag, raw, values) };
}

/** Text that must not be empty (spaces around it dropped); undefined when not given. */
export function text(): Parser<string | undefined> {
  return { parse: (flag, raw) => nonEmpty(flag, raw) };
}

/** The value as given (a part of a value another step reads, such as `--relation` with `--activity`). */
export function given(): Parser<string | undefined> {
  return { parse: (_flag, raw) => (typeof raw === 'string' ? raw : undefined) };
}

/**
 * Names, comma-separated or repeated (`--include indications,sponsors`), each in lower case with
 * `_` for `-`, once each, in the order given; [] when not given. `what` says what they are in the
 * error (`section names such as indications,sponsors`).
 */
export function names(what: string): Parser<string[]> {
  return {
    repeated: true,
    parse: (flag, raw) => {
      if (!Array.isArray(raw)) return [];
      const typed = raw.join(',');
      const list = [
        ...new Set(
          typed
            .split(',')
            .map((s) => s.trim().toLowerCase().replace(/-/g, '_'))
            .filter(Boolean),
        ),
      ];
      if (list.length === 0 || list.some((s) => !/^[a-z][a-z0-9_]*$/.test(s)))
        throw new UsageError(`${flag} takes comma-separated ${what} (got "${typed}")`);
      return list;
    },
  };
}

/** A switch: true when given. */
export function on(): Parser<boolean> {
  return { parse: (_flag, raw) => raw === true };
}

/** Adds each option to the commander command, in the declaration's order (help shows that order). */
export function withOptions(cmd: Command, specs: OptionSpecs): Command {
  for (const spec of Object.values(specs)) {
    if (spec.parse.repeated) cmd.option(spec.flags, spec.description, collect);
    else cmd.option(spec.flags, spec.description);
  }
  return cmd;
}

/** The typed options of a command line: each flag commander parsed, through its parser. */
export function parseOptions<S extends OptionSpecs>(specs: S, flags: Readonly<Record<string, unknown>>): OptionsOf<S> {
  const options: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(specs)) options[key] = spec.parse.parse(spec.flags.split(/[ ,]/)[0]!, flags[key]);
  return options as OptionsOf<S>;
}
