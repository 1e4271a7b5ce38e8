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
 * where the row's JSON is given, a dotted path into the row (`scores.composite.score`). A name this
 * printout has nothing for (a member only another part carries) is skipped; names were checked
 * against the command's list before any request.
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
    if (rest.length === 0) continue;
    const parent = columns.find((col) => columnKey(col) === head);
    if (parent) picked.push({ header: f, key: f, value: (row) => cellAt(parent.value(row), rest) });
    else if (rowJson) picked.push({ header: f, key: f, value: (row) => cellAt(rowJson(row), [head, ...rest]) });
  }
  return picked;
}

/**
 * csv and tsv: every column holding objects becomes one column per leaf member, named by its
 * dotted path (`composite` → `composite.score`, `composite.raw`, …; deeper objects deeper paths),
 * in the order members first appear in `sample` (the rows known before the header is written),
 * after the column's declared `members`. Arrays, plain values and objects `DOTTED_DEPTH` levels
 * down are leaves. A column that also
 * holds plain values in some row keeps its own column beside the dotted ones, so nothing is lost.
 */
export function expandColumns<T>(columns: readonly Column<T>[], sample: readonly T[]): Column<T>[] {
  const out: Column<T>[] = [];
  for (const c of columns) {
    const leaves = new Map<string, readonly string[]>();
    for (const m of c.members ?? []) leaves.set(m, [m]);
    let plain = false;
    let nested = (c.members?.length ?? 0) > 0;
    for (const row of sample) {
      const v = c.value(row);
      if (!isRecord(v)) {
        if (v !== null && v !== undefined) plain = true;
        continue;
      }
      nested = true;
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
    if (!nested) {
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
