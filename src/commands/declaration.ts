/**
 * What a command is, declared once beside its code (wrangler's `createCommand`, gh's
 * `AddJSONFlags(cmd, &opts.Exporter, fields)`): its path, description, examples, the fields
 * `--fields` / `--json a,b` take (each with its JSON path and its column, or why it has none), and
 * the `build`/`run` pair. `src/commands/registry.ts` lists every
 * command module; `src/program.ts` builds the commander tree from the ones a line needs, and help,
 * `--fields`, the JSON projection, the csv/tsv/table columns, man pages, completions and `rsi help
 * reference` follow.
 *
 * Plain data (and commander, which every run loads anyway): a run reads the declarations of the
 * command it loads, and the build reads every one for the root's list (src/commands/summaries.ts).
 */
import { Command } from 'commander';
import type { Context } from '../context.js';
import type { Column } from '../io/columns.js';

/** Where a field exists: both modes, or only for one input (`keywords get EGFR`) or for many (`-`). */
export type FieldMode = 'single' | 'batch';

/**
 * A field's column in csv, tsv and the table: its header (default: the name in upper case), its
 * value (default: the member at the field's first JSON path) and the facts only the table reads
 * (`id`, `time`, `wideOnly`, `tableValue`, `flexible` …). Its csv key is always the field's name.
 */
export type ColumnFacts<T = any> = Partial<Omit<Column<T>, 'key'>>;

export interface Field<T = any> {
  /** What `--fields` takes, the csv/tsv key of its column, and the key `--json` puts it under. */
  name: string;
  /**
   * The member's paths in a JSON row (a row of the list, or the document when the document is the
   * row), dotted; an array on the way is walked (`analyses.keyword_name`: that member of every
   * analysis). `--json FIELD` keeps the member at these paths (docs/scripting.md, "Choosing
   * fields"). `refused` instead: why JSON has no such member, and what to use instead.
   */
  json: { paths: readonly string[] } | { refused: string };
  /** Its column in csv, tsv and the table (see `ColumnFacts`); or why these have none, and what instead. */
  column: ColumnFacts<T> | { refused: string };
  /** A column csv and tsv have but the table has not: why, and what instead. */
  table?: { refused: string } | undefined;
  /**
   * The reply's part(s) whose rows hold this member (`analyses` of a status, `runs` and `skipped`
   * of an analyses run): its JSON paths start with the part, and its column reads the rest from
   * each of the part's rows. Absent: the row is the document (a card, a status) or a list's row.
   * A list whose csv and tsv print one kind of row at a time (`opportunities`, or with --analyses
   * its analyses) names both kinds as parts, the list's own rows' fields keeping their paths.
   */
  part?: string | readonly string[] | undefined;
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
  /**
   * A command line whose output has every field (the words after the path; `{project}` and
   * `{keyword}` stand for a project and a keyword that exist), and for a command that reads many
   * inputs from stdin, the line that does: what the field × format property test runs
   * (test/unit/fields-every-format.test.ts), so a new command needs no line of its own there.
   */
  sample?:
    | {
        line: readonly string[];
        /** More lines with one input, where some fields need a flag (`opportunities --analyses`). */
        more?: ReadonlyArray<readonly string[]> | undefined;
        batch?: readonly string[] | undefined;
      }
    | undefined;
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
  /**
   * The command prints text, never JSON, on this line: what it prints instead, for `--jq`'s
   * refusal (exit 2), as `--fields` is refused where there are no columns. Undefined for a line that
   * prints JSON (`rsi help schema status`).
   */
  printsText?: ((line: { args: readonly unknown[] }) => string | undefined) | undefined;
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

/**
 * A field that is a member in JSON and a column everywhere: `field('name')`, `field('papers',
 * 'activity.papers')` (its JSON path, when not its name), `field('id', { header: 'ID', id: true })`
 * (its column's facts).
 */
export function field<T = any>(name: string, ...given: Array<string | ColumnFacts<T>>): Field<T> {
  const paths = given.filter((g): g is string => typeof g === 'string');
  const facts = given.find((g): g is ColumnFacts<T> => typeof g !== 'string') ?? {};
  return { name, json: { paths: paths.length > 0 ? paths : [name] }, column: facts };
}

/** A field only JSON has (a member whose parts are the columns): why csv, tsv and the table have none. */
export function jsonOnly(name: string, path: string, refused: string): Field {
  return { name, json: { paths: [path] }, column: { refused } };
}

/** A field only csv, tsv and the table have (`section`): why JSON has none. */
export function columnOnly<T = any>(name: string, refused: string, facts: ColumnFacts<T> = {}): Field<T> {
  return { name, json: { refused }, column: facts };
}

/** Whether csv, tsv and the table have the field's column. */
export function hasColumn(f: Field): f is Field & { column: ColumnFacts } {
  return !('refused' in f.column);
}

/**
 * The columns of csv, tsv and the table, from the fields that own them, in their order: each
 * keyed by its field's name, headed and valued as the field says (by default the name in upper
 * case, and the member at its JSON path); a column with no member and no value (`section`, which
 * the printer of a multi-part reply writes) is none of them. `part`: the columns of that part's rows (their paths
 * read from each row of the part); without, the fields of no part. `only`: these fields, in this
 * order (a table's own choice and order of the same columns).
 */
export function columnsOf<T>(fields: readonly Field<T>[], options: { part?: string; only?: readonly string[] } = {}): Column<T>[] {
  const { part, only } = options;
  const inPart = (f: Field<T>): boolean => {
    const parts = f.part === undefined ? [] : typeof f.part === 'string' ? [f.part] : f.part;
    return part === undefined ? parts.length === 0 : parts.includes(part);
  };
  // A column with neither a member nor a value of its own (`section`) is the printer's to write.
  const own = fields.filter((f) => hasColumn(f) && inPart(f) && ('paths' in f.json || f.column.value !== undefined));
  const chosen = only
    ? only.map((name) => {
        const f = own.find((g) => g.name === name);
        if (!f) throw new Error(`no column ${name}${part ? ` in the part ${part}` : ''}`);
        return f;
      })
    : own;
  return chosen.map((f) => {
    const declared = 'paths' in f.json ? f.json.paths : [f.name];
    const paths = part === undefined ? declared : declared.filter((p) => p.startsWith(`${part}.`)).map((p) => p.slice(part.length + 1));
    const path = (paths[0] ?? f.name).split('.');
    const member = paths.length > 1 || (paths[0] !== undefined && paths[0] !== f.name) ? paths : undefined;
    return {
      header: f.name.toUpperCase(),
      value: (row: T) => memberAt(row, path),
      ...(member ? { member } : {}),
      ...(f.column as ColumnFacts<T>),
      key: f.name,
    } as Column<T>;
  });
}

function memberAt(row: unknown, path: readonly string[]): unknown {
  let v = row;
  for (const segment of path) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, segment)) return undefined;
    v = (v as Record<string, unknown>)[segment];
  }
  return v;
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

/**
 * The project argument of the commands that act on one (status, signals, opportunities, analyses
 * run; scoreboard adds why a name needs the API): one wording for all, as help and man pages show it.
 */
export function withProjectArgument(cmd: Command): Command {
  return cmd.argument(
    '[project]',
    'project UUID or exact name; left out: the default project (rsi config set project), else picked at a terminal',
  );
}
