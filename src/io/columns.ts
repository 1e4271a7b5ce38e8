/**
 * Columns for the tabular formats, and `--fields` paths (issue 30): what a row's columns are once
 * the user has chosen some (`name,composite`, `scores.composite.score`), and how a nested object
 * becomes dotted columns in csv and tsv (`composite.score`, `composite.label`, …) instead of a JSON
 * blob in one cell. Plain data and functions; output.ts writes the cells. Nothing here recurses
 * per level of the data: a hostile reply nested 100,000 deep costs a loop, not the stack.
 */
import { ExactNumber, keepLiterals, keptLiterals, literalAt } from './json.js';

export interface Column<T> {
  /** The table header (people); upper case by convention. */
  header: string;
  /** The csv header; default: `header` in lower_snake case (`RUN ID` → `run_id`). */
  key?: string;
  /**
   * The member(s) of the row's JSON this column shows, as dotted paths, when it is not the key
   * (`activity.papers` for `papers`, `scores.as_of` for `scores_as_of`, a tool's `title` and
   * `description` for one cell): csv and tsv give a column to every member no column shows
   * (`unknownMembers`), so this says which ones are shown.
   */
  member?: string | readonly string[];
  value: (row: T) => unknown;
  /** What a table shows instead of `value` (a score's figure, where tsv/csv keep the whole KeywordScore). */
  tableValue?: ((row: T) => unknown) | undefined;
  /** In a table, shown only with --wide (what people rarely read); tsv, csv and JSON always have it. */
  wideOnly?: boolean | undefined;
  /** Right-align numbers in tables. */
  numeric?: boolean;
  /** Column gives up width first when the table is too wide. */
  flexible?: boolean;
  /**
   * Never shortened or widened: a picture drawn to its width (a bar, with an empty header; left
   * out first when the table does not fit) or a name people type (`mcp tools`).
   */
  keep?: boolean;
  /**
   * An id: in a table its first 8 characters and `…` (more where two ids of the table would read
   * the same); in full in tsv, csv and JSON, which are what scripts and copying are for.
   */
  id?: boolean;
  /** An ISO 8601 time from the server: relative in a table (`3 min ago`), exact elsewhere. */
  time?: boolean;
  /**
   * The members an object in this column has by the spec (a KeywordScore's `score`, `raw`, `label`,
   * `description`): csv and tsv give each its dotted column even before a row has shown them, so a
   * streamed list whose first rows lack the object still has the columns for it.
   */
  members?: readonly string[];
}

export function columnKey(column: { header: string; key?: string | undefined }): string {
  return (
    column.key ??
    column.header
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_|_$/g, '')
  );
}

/**
 * How deep dotted columns go: an object nested deeper inside a column stays one JSON cell (a name
 * of 32 segments is already no column a person asked for, and a hostile reply's 100,000 levels
 * would make 100,000-segment names).
 */
export const DOTTED_DEPTH = 32;

/** A plain object (not an array, not null, not a cell's ExactNumber): what becomes dotted columns. */
function isRecord(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The cell at a dotted path: the value there, a number as an ExactNumber when the service's literal
 * for that place is known (`12.50` stays `12.50` in csv and tsv).
 */
export function cellAt(value: unknown, path: readonly string[]): unknown {
  let holder: unknown;
  let v = value;
  for (const segment of path) {
    if (!isRecord(v) || !Object.hasOwn(v, segment)) return undefined;
    holder = v;
    v = v[segment];
  }
  if (typeof v !== 'number' || holder === undefined || !keptLiterals()) return v;
  const literal = literalAt(holder as object, path[path.length - 1]!);
  return literal === undefined ? v : new ExactNumber(v, literal);
}

/**
 * A number a column took out of its row, as an ExactNumber when the row holds it in exactly one
 * spelling the service sent (a member of the row, or of the row's members one level down, whose
 * value it is): a plain column such as `score` then prints `1.10` as sent.
 */
export function exactInRow(value: unknown, row: unknown): unknown {
  if (typeof value !== 'number' || !keptLiterals() || !isRecord(row)) return value;
  let found: string | undefined;
  const look = (holder: Record<string, unknown>): boolean => {
    for (const k of Object.keys(holder)) {
      if (!Object.is(holder[k], value)) continue;
      const literal = literalAt(holder, k) ?? String(value);
      if (found !== undefined && found !== literal) return false;
      found = literal;
    }
    return true;
  };
  if (!look(row)) return value;
  for (const member of Object.values(row)) if (isRecord(member) && !look(member)) return value;
  return found === undefined || found === String(value) ? value : new ExactNumber(value, found);
}

/** The value at a dotted path's segments (undefined where the path leaves the objects). */
export function atPath(value: unknown, path: readonly string[]): unknown {
  let v = value;
  for (const segment of path) {
    if (!isRecord(v) || !Object.hasOwn(v, segment)) return undefined;
    v = v[segment];
  }
  return v;
}

/**
 * Only the named members of an object, in the order named, a dotted name picking inside a member
 * (`scores.composite.score` keeps `{"scores":{"composite":{"score":…}}}`); anything but an object
 * is left as is. Number literals go with the members (src/io/json.ts).
 */
export function pickFields(value: unknown, fields: readonly string[]): unknown {
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const path = f.split('.');
    let from: Record<string, unknown> = value;
    let to = out;
    for (let i = 0; i < path.length; i++) {
      const segment = path[i]!;
      if (!Object.hasOwn(from, segment)) break;
      const v = from[segment];
      if (i === path.length - 1) {
        to[segment] = v;
        keepLiterals(from, to);
      } else {
        if (!isRecord(v)) break;
        if (!isRecord(to[segment]) || !Object.hasOwn(to, segment)) to[segment] = {};
        from = v;
        to = to[segment] as Record<string, unknown>;
      }
    }
  }
  return out;
}

/**
 * The columns `--fields` names, in its order. A name is a column's key (`keyword_id`, `name`), or
 * a dotted path into one (`composite.score`: the column `composite`, then its member `score`), or,
 * where the row's JSON is given, a member or dotted path into the row (`scores.composite.score`, a
 * member the spec does not list). Without the row's JSON a name this printout has nothing for is
 * skipped.
 */
export function selectColumns<T, C extends Column<T>>(
  columns: readonly C[],
  fields: readonly string[],
  rowJson?: (row: T) => unknown,
): Column<T>[] {
  const picked: Column<T>[] = [];
  for (const f of fields) {
    const exact = columns.find((col) => columnKey(col) === f);
    if (exact) {
      picked.push(exact);
      continue;
    }
    const [head = '', ...rest] = f.split('.');
    const parent = rest.length === 0 ? undefined : columns.find((col) => columnKey(col) === head);
    if (parent) picked.push({ header: f, key: f, value: (row) => cellAt(parent.value(row), rest) });
    // A member no column declares (one the spec does not list): read from the row as sent.
    else if (rowJson) picked.push({ header: f, key: f, value: (row) => cellAt(rowJson(row), [head, ...rest]) });
  }
  return picked;
}

/**
 * csv and tsv: every column holding objects becomes one column per leaf member, named by its
 * dotted path (`composite` → `composite.score`, `composite.raw`, …; deeper objects deeper paths),
 * in the order members first appear in `sample` (the rows known before the header is written),
 * after the column's declared `members`. Arrays, plain values and objects `DOTTED_DEPTH` levels
 * down are leaves. An empty object `{}` is the same at every depth: where no row of the sample
 * gives that place members it is a leaf, its cell `{}` (a column of its own at the top of a row,
 * a dotted one below); where one does, its cells in those members are empty. A column that also
 * holds plain values in some row keeps its own column beside the dotted ones, so nothing is lost.
 */
export function expandColumns<T>(columns: readonly Column<T>[], sample: readonly T[]): Column<T>[] {
  const out: Column<T>[] = [];
  for (const c of columns) {
    const leaves = new Map<string, readonly string[]>();
    for (const m of c.members ?? []) leaves.set(m, [m]);
    let plain = false;
    for (const row of sample) {
      const v = c.value(row);
      if (!isRecord(v)) {
        if (v !== null && v !== undefined) plain = true;
        continue;
      }
      // Depth first, in member order, with a stack of its own.
      const stack: Array<{ obj: Record<string, unknown>; path: string[]; keys: string[]; next: number }> = [
        { obj: v, path: [], keys: Object.keys(v), next: 0 },
      ];
      while (stack.length > 0) {
        const frame = stack[stack.length - 1]!;
        if (frame.next >= frame.keys.length) {
          stack.pop();
          continue;
        }
        const k = frame.keys[frame.next++]!;
        const member = frame.obj[k];
        const path = [...frame.path, k];
        if (isRecord(member) && Object.keys(member).length > 0 && path.length < DOTTED_DEPTH)
          stack.push({ obj: member, path, keys: Object.keys(member), next: 0 });
        else if (!leaves.has(path.join('.'))) leaves.set(path.join('.'), path);
      }
    }
    // A leaf `{}` that another row fills with members is no leaf: its members' columns hold it.
    for (const [name] of leaves) if ([...leaves.keys()].some((other) => other.startsWith(`${name}.`))) leaves.delete(name);
    if (leaves.size === 0) {
      out.push(c);
      continue;
    }
    const key = columnKey(c);
    if (plain) out.push({ ...c, value: (row) => (isRecord(c.value(row)) ? undefined : c.value(row)) });
    for (const [name, path] of leaves)
      out.push({ header: `${key}.${name}`, key: `${key}.${name}`, value: (row) => cellAt(c.value(row), path) });
  }
  return out;
}

/**
 * The members of the rows' JSON that no column shows (none is its `member` or key, or holds it),
 * as dotted paths in the order they first appear in `sample`: members the spec does not list, which
 * csv and tsv give columns of their own after the declared ones, so nothing a row carries is
 * dropped. `elsewhere` names members shown in another part of the reply (a card's `--include`
 * sections, a status's `analyses`). Only a shown member's parents are walked into, so the walk is
 * as deep as the declared paths, never as deep as the data.
 */
export function unknownMembers<T>(
  columns: readonly Column<T>[],
  sample: readonly T[],
  rowJson: (row: T) => unknown,
  elsewhere: readonly string[] = [],
): string[][] {
  const shown = [...columns.flatMap((c) => shownMembers(c)), ...elsewhere].map((p) => p.split('.'));
  const starts = (path: readonly string[], prefix: readonly string[]): boolean =>
    prefix.length <= path.length && prefix.every((s, i) => path[i] === s);
  const found = new Map<string, string[]>();
  const walk = (value: Record<string, unknown>, at: string[]): void => {
    for (const k of Object.keys(value)) {
      const path = [...at, k];
      if (shown.some((s) => starts(path, s))) continue;
      if (shown.some((s) => s.length > path.length && starts(s, path))) {
        const member = value[k];
        if (isRecord(member)) walk(member, path);
        continue;
      }
      if (!found.has(path.join('.'))) found.set(path.join('.'), path);
    }
  };
  for (const row of sample) {
    const json = rowJson(row);
    if (isRecord(json)) walk(json, []);
  }
  return [...found.values()];
}

/** The dotted paths of the members a column shows: its `member`s, else its key. */
export function shownMembers(column: Column<never> | Column<any>): readonly string[] {
  const m = column.member;
  return m === undefined ? [columnKey(column)] : typeof m === 'string' ? [m] : m;
}

/** Columns for members `unknownMembers` found: each named by its path, its cell read from the row's JSON. */
export function memberColumns<T>(paths: readonly string[][], rowJson: (row: T) => unknown): Column<T>[] {
  return paths.map((path) => ({ header: path.join('.'), key: path.join('.'), value: (row: T) => cellAt(rowJson(row), path) }));
}

/** The columns as a table shows them: `tableValue` for `value`, `wideOnly` ones only with --wide. */
export function tableView<T>(columns: readonly Column<T>[], wide: boolean | undefined): readonly Column<T>[] {
  return columns.filter((c) => wide || !c.wideOnly).map((c) => (c.tableValue ? { ...c, value: c.tableValue } : c));
}

/**
 * A row led by one member of rsi's own (a batch row's `input`, the line it answers), the row's
 * members after it with their number literals kept; rsi's member wins over one of the same name.
 */
export function ledBy(member: string, value: unknown, row: unknown): Record<string, unknown> {
  if (!isRecord(row)) return { [member]: value };
  const out: Record<string, unknown> = { [member]: value };
  for (const k of Object.keys(row)) if (k !== member) out[k] = row[k];
  keepLiterals(row, out);
  return out;
}
