/**
 * What a command is, declared once beside its code (wrangler's `createCommand`, gh's
 * `AddJSONFlags(cmd, &opts.Exporter, fields)`): its path, description, examples, the fields
 * `--fields` / `--json a,b` take (each with its JSON path and whether it has a column), the paged
 * endpoint its `--all` walks, and the `build`/`run` pair. `src/commands/registry.ts` lists every
 * command module; `src/program.ts` builds the commander tree from the ones a line needs, and help,
 * `--fields`, the JSON projection, the csv/tsv/table columns, man pages, completions and `rsi help
 * reference` follow.
 *
 * Plain data (and commander, which every run loads anyway): a run reads the declarations of the
 * command it loads, and the build reads every one for the root's list (src/commands/summaries.ts).
 */
import { Command } from 'commander';
import type { Context } from '../context.js';

/** Where a field exists: both modes, or only for one input (`keywords get EGFR`) or for many (`-`). */
export type FieldMode = 'single' | 'batch';

export interface Field {
  /** What `--fields` takes, and the csv/tsv key of its column. */
  name: string;
  /**
   * The member's paths in a JSON row (a row of the list, or the document when the document is the
   * row), dotted; an array on the way is walked (`analyses.keyword_name`: that member of every
   * analysis). `--json FIELD` keeps the member at these paths (docs/scripting.md, "Choosing
   * fields"). `refused` instead: why JSON has no such member, and what to use instead.
   */
  json: { paths: readonly string[] } | { refused: string };
  /** Whether csv, tsv and the table have a column of this name; if not, why, and what instead. */
  column: true | { refused: string };
  /** A column csv and tsv have but the table has not: why, and what instead. */
  table?: { refused: string } | undefined;
  /** Only with one input, or only with many (`-`); absent: both. */
  mode?: FieldMode | undefined;
  /** Why this command line has no such member (a section left out of `--include`); undefined when it has. */
  requires?: ((line: { args: readonly unknown[]; opts: Readonly<Record<string, unknown>> }) => string | undefined) | undefined;
}

export interface FieldList {
  /** The member of the JSON document that holds the rows (`data`, `projects`); none when the document is the row. */
  rows?: string | undefined;
  list: readonly Field[];
  /** Whether a command line reads many inputs (`rsi keywords get -`): its arguments after parsing. */
  batch?: ((args: readonly unknown[]) => boolean) | undefined;
}

export interface CommandDeclaration {
  /** The words after `rsi` (`keywords search`); a group's path is its one word. */
  path: string;
  description: string;
  /** Command lines shown under "Examples:" in help, man pages and the reference. */
  examples?: readonly string[] | undefined;
  /** The fields `--fields` and `--json a,b` take; absent: the output has no fixed columns, and `--fields` is refused. */
  fields?: FieldList | undefined;
  /** The paged endpoint `--all` walks (`GET /keywords/search`, src/client/walks.ts). */
  paged?: string | undefined;
  hidden?: boolean | undefined;
  /**
   * The command takes no arguments, and one given by mistake may be a secret (`rsi login
   * --with-token <token>`): it is refused without being repeated, with this hint (where it goes).
   */
  secretArguments?: string | undefined;
  /**
   * The Context's bound (src/context/deadline.ts) does not apply: `login` enforces `--timeout`
   * itself (a timed-out sign-in is exit 3 with the ways in for a machine no browser reaches); the
   * servers (`sandbox`, `mcp serve`) run until stopped.
   */
  ownTimeout?: true | undefined;
}

/**
 * A command module: its declaration, and the commander command it builds (flags → options →
 * `run`). `inner`: the declarations of subcommands the module builds itself (`config list|get|…`,
 * which share their keys' help and one `run`).
 */
export interface CommandModule {
  command: CommandDeclaration;
  build(ctx: Context): Command;
  inner?: readonly CommandDeclaration[] | undefined;
}

/** A group (`rsi keywords …`): its declaration and its subcommands, in help order. */
export interface GroupModule {
  command: CommandDeclaration;
  subcommands: readonly CommandModule[];
}

export type RegistryEntry = CommandModule | GroupModule;

export function isGroup(entry: RegistryEntry): entry is GroupModule {
  return 'subcommands' in entry;
}

/** A field that is a member in JSON and a column everywhere: `field('name')`, `field('papers', 'activity.papers')`. */
export function field(name: string, ...paths: string[]): Field {
  return { name, json: { paths: paths.length > 0 ? paths : [name] }, column: true };
}

/** A field only JSON has (a member whose parts are the columns): why csv, tsv and the table have none. */
export function jsonOnly(name: string, path: string, refused: string): Field {
  return { name, json: { paths: [path] }, column: { refused } };
}

/** A field only csv, tsv and the table have (`section`): why JSON has none. */
export function columnOnly(name: string, refused: string): Field {
  return { name, json: { refused }, column: true };
}

/** The field, only with one input or only with many (`-`). */
export function only(mode: FieldMode, f: Field): Field {
  return { ...f, mode };
}

/**
 * The commander command a declaration names, with its description: each `build` starts here and
 * adds its arguments and options. Examples and the field list are added from the declaration by
 * `src/program.ts`, after the command's own help text.
 */
export function commandFor(declaration: CommandDeclaration): Command {
  return new Command(declaration.path.split(' ').at(-1)).description(declaration.description);
}
