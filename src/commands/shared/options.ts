/**
 * A command's options as data (wrangler's `args`, the MCP SDK's input shape): each option's flag,
 * its help, and its parser (`int(LIMITS.searchLimit)`, `oneOf(ANALYSIS_MODES)`, `text()`, `on()`),
 * from which the commander options are added and the typed options are read, so the options type
 * is inferred from the declaration (`OptionsOf<typeof OPTIONS>`) and never written beside it.
 * Zod-free and synchronous: a bad value is a UsageError naming the flag, before any request.
 */
import { type Command, Option } from 'commander';
import type { Limit } from '../../client/limits.js';
import { UsageError } from '../../errors.js';
import { collect, enumFlag, intFlag, nonEmpty } from './flags.js';

/** What a flag's value must be, checked at the boundary. */
export interface Parser<T> {
  /** The value of what commander gave (`raw`), named `flag` in the error when it is not one. */
  parse(flag: string, raw: unknown): T;
  /** The flag may be repeated: commander gives every occurrence, in order (`--include a --include b`). */
  repeated?: true;
  /** A `--no-x` flag: commander gives false when it is typed, true when not. */
  negatable?: true;
}

/**
 * A rule between this option and others (named by their keys), checked when this one is given,
 * before any value is read: the combination is wrong whatever the values are. `message` replaces
 * the usual sentence (`--a only applies with --b`, `--a cannot be used with --b`).
 */
export type OptionRule = { needs: string; message?: string } | { conflicts: string; message?: string };

/**
 * An option: its flags as commander takes them (`--limit <n>`), its help, its parser, and what
 * commander knows of it besides: a default shown in help (`(default: "0")`), hidden from help (a
 * habit kept working, not taught), and its rules with other options, in the order they are checked.
 * Its key in the specs is commander's name for it (`--tls-cert` is `tlsCert`, `--no-browser` is `browser`).
 */
export interface OptionSpec<T = unknown> {
  flags: string;
  description: string;
  parse: Parser<T>;
  default?: string | readonly string[];
  hidden?: true;
  rules?: readonly OptionRule[];
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** The typed options a set of specs gives: `{ limit: number | undefined; all: boolean }`; one with a default is never undefined. */
export type OptionsOf<S extends OptionSpecs> = {
  -readonly [K in keyof S]: S[K] extends OptionSpec<infer T> ? (S[K] extends { default: unknown } ? Exclude<T, undefined> : T) : never;
};

/** An integer within an API limit (src/client/limits.ts) or [min, max]; undefined when not given. */
export function int(limit: Limit | number, max?: number): Parser<number | undefined> {
  const { min, max: top } = typeof limit === 'number' ? { min: limit, max } : limit;
  return { parse: (flag, raw) => intFlag(flag, raw, min, top) };
}

/**
 * A number as JavaScript reads one (`1.5`, `2e3`, ` 7 `), within [min, max] (a Limit, or min and
 * max); `integer` also asks for a whole one. `what` names it in the error: `--top must be a whole
 * number from 1 to 100 (got "x")`. Undefined when not given.
 */
export function number(
  limit: Limit | number,
  max?: number,
  { integer = false, what = integer ? 'an integer' : 'a number' }: { integer?: boolean; what?: string } = {},
): Parser<number | undefined> {
  const { min, max: top = Number.MAX_VALUE } = typeof limit === 'number' ? { min: limit, max } : limit;
  return {
    parse: (flag, raw) => {
      if (raw === undefined) return undefined;
      const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
      if (!Number.isFinite(value) || value < min || value > top || (integer && !Number.isInteger(value))) {
        const range = top === Number.MAX_VALUE ? `of at least ${min}` : `from ${min} to ${top}`;
        throw new UsageError(`${flag} must be ${what} ${range} (got "${String(raw)}")`);
      }
      return value;
    },
  };
}

/** Seconds, a fraction allowed (`--interval 0.5`), within [min, max]; undefined when not given. */
export function seconds(min: number, max: number): Parser<number | undefined> {
  return number(min, max, { what: 'a number of seconds' });
}

/** One of `values`, exactly; undefined when not given. */
export function oneOf<T extends string>(values: readonly T[]): Parser<T | undefined> {
  return { parse: (flag, raw) => enumFlag(flag, raw, values) };
}

/** Text that must not be empty (spaces around it dropped), at most `max` characters; undefined when not given. */
export function text(max?: number): Parser<string | undefined> {
  return {
    parse: (flag, raw) => {
      const value = nonEmpty(flag, raw);
      if (max !== undefined && value !== undefined && value.length > max) throw new UsageError(`${flag} must be at most ${max} characters`);
      return value;
    },
  };
}

/**
 * Text that must match `pattern` (spaces around it dropped first with `trim`); `why(value)` is the
 * error. Undefined when not given.
 */
export function matching(pattern: RegExp, why: (value: string) => string, { trim = false } = {}): Parser<string | undefined> {
  return {
    parse: (_flag, raw) => {
      if (raw === undefined) return undefined;
      const value = trim ? String(raw).trim() : String(raw);
      if (!pattern.test(value)) throw new UsageError(why(value));
      return value;
    },
  };
}

/** The value as given (a part of a value another step reads, such as `--relation` with `--activity`; a file path, `-` for stdin). */
export function given(): Parser<string | undefined> {
  return { parse: (_flag, raw) => (typeof raw === 'string' ? raw : undefined) };
}

/**
 * A repeatable flag's values, in the order given; [] when not given. With `split`, each occurrence
 * is a list too (`--goal a,b`); with `item`, each value is read by it (named by the flag), and one
 * it makes undefined is dropped.
 */
export function list(): Parser<string[]>;
export function list<T>(options: { split?: RegExp; item: (flag: string, value: string) => T | undefined }): Parser<T[]>;
export function list<T>(options: { split?: RegExp; item?: (flag: string, value: string) => T | undefined } = {}): Parser<T[]> {
  const item = options.item ?? ((_flag: string, value: string) => value as T);
  return {
    repeated: true,
    parse: (flag, raw) => {
      if (!Array.isArray(raw)) return [];
      const values = options.split ? raw.flatMap((v: string) => v.split(options.split!)) : (raw as string[]);
      return values.map((v) => item(flag, v)).filter((v): v is T => v !== undefined);
    },
  };
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

/** A switch that is on unless its `--no-x` flag is given (`--no-browser`): false then. */
export function negatable(): Parser<boolean> {
  return { negatable: true, parse: (_flag, raw) => raw !== false };
}

/** The flag a person types for the option (`--tls-cert` of `--tls-cert <file>`), as errors name it. */
function flagOf(spec: OptionSpec): string {
  return spec.flags.split(/[ ,]+/).find((f) => f.startsWith('--')) ?? spec.flags.split(/[ ,]/)[0]!;
}

/** commander's name for the option's value (`--tls-cert` → `tlsCert`, `--no-browser` → `browser`). */
function attributeOf(spec: OptionSpec): string {
  return flagOf(spec)
    .replace(/^--(no-)?/, '')
    .replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/** Whether commander's value says the option was typed (not its default, not left out). */
function isGiven(spec: OptionSpec, raw: unknown): boolean {
  if (spec.parse.negatable) return raw === false;
  if (raw === undefined || raw === false || raw === spec.default) return false;
  return !(Array.isArray(raw) && raw.length === 0);
}

/** Options withOptions added: a test holds every command's options to their declarations. */
const declared = new WeakSet<Option>();

/** Whether this commander option came from a declaration (withOptions), not from `.option()` by hand. */
export function isDeclared(option: Option): boolean {
  return declared.has(option);
}

/**
 * Adds each option to the commander command, in the declaration's order (help shows that order).
 * A key that is not commander's name for its flag, or a rule naming no option, is a mistake in the
 * declaration: it fails when the command is built, so every test that builds it sees it.
 */
export function withOptions(cmd: Command, specs: OptionSpecs): Command {
  for (const [key, spec] of Object.entries(specs)) {
    if (attributeOf(spec) !== key) throw new Error(`internal: the option ${spec.flags} must be keyed ${attributeOf(spec)}, not ${key}`);
    for (const rule of spec.rules ?? []) {
      const other = 'needs' in rule ? rule.needs : rule.conflicts;
      if (!(other in specs)) throw new Error(`internal: a rule of ${spec.flags} names no option: ${other}`);
    }
    const option = new Option(spec.flags, spec.description);
    if (spec.parse.repeated) option.argParser(collect);
    if (spec.default !== undefined) option.default(spec.default);
    if (spec.hidden) option.hideHelp();
    declared.add(option);
    cmd.addOption(option);
  }
  return cmd;
}

/**
 * The typed options of a command line: first each given option's rules, in the declaration's
 * order (a wrong combination is said whatever the values), then each flag commander parsed,
 * through its parser.
 */
export function parseOptions<S extends OptionSpecs>(specs: S, flags: Readonly<Record<string, unknown>>): OptionsOf<S> {
  for (const [key, spec] of Object.entries(specs)) {
    if (!isGiven(spec, flags[key])) continue;
    for (const rule of spec.rules ?? []) {
      if ('needs' in rule && !isGiven(specs[rule.needs]!, flags[rule.needs]))
        throw new UsageError(rule.message ?? `${flagOf(spec)} only applies with ${flagOf(specs[rule.needs]!)}`);
      if ('conflicts' in rule && isGiven(specs[rule.conflicts]!, flags[rule.conflicts]))
        throw new UsageError(rule.message ?? `${flagOf(spec)} cannot be used with ${flagOf(specs[rule.conflicts]!)}`);
    }
  }
  const options: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(specs)) options[key] = spec.parse.parse(flagOf(spec), flags[key] ?? spec.default);
  return options as OptionsOf<S>;
}
