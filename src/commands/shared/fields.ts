/**
 * `--fields` / `--json a,b` against a command's declared fields (src/commands/declaration.ts):
 * checked before any request, then turned into what the output module needs: the column names for
 * csv, tsv and the table, and a projection of JSON rows that puts each chosen member under the
 * name that was typed, so the name reads back as a key (`--json momentum` on a card:
 * `{"momentum":{…}}`, `.momentum` in jq; docs/scripting.md, "Choosing fields"). A field a format
 * has no member or column for is refused there, exit 2, with why and what to use instead: never an
 * empty `{}` with exit 0.
 */
import type { CommandDeclaration, Field } from '../declaration.js';
import { UsageError } from '../../errors.js';
import { forPeople, type OutputFormat } from '../../formats.js';
import { keepLiteralAs, keepLiterals } from '../../io/json.js';
import { printsDocuments } from '../../io/replies.js';
import { editDistance } from '../../io/text.js';
import { unknownFields } from './unknown-fields.js';

/** What the command line says beside `--fields`: its format, its arguments and its options. */
export interface FieldLine {
  format: OutputFormat;
  args: readonly unknown[];
  opts: Readonly<Record<string, unknown>>;
}

export interface ChosenFields {
  /** The names, for the columns of csv, tsv and the table (a dotted name reads into its column). */
  columns: readonly string[];
  /** What the JSON projection keeps, in the order chosen. */
  json: readonly JsonPick[];
}

/**
 * One chosen field in JSON: its member's paths in a row, and the key it is put under there (the
 * field's name), with the dotted rest that was typed below it (`momentum.score`: key `momentum`,
 * path `scores.momentum`, rest `score`).
 */
export interface JsonPick {
  key: string;
  paths: readonly string[];
  rest: readonly string[];
}

/**
 * The fields a line chose, checked: each must be a declared field (a dotted name by its first
 * part), exist in this mode (one input or many) and in this format. Throws a UsageError otherwise.
 */
export function chooseFields(declaration: CommandDeclaration, given: readonly string[], line: FieldLine): ChosenFields {
  const path = declaration.path;
  const list = declaration.fields?.list;
  if (!list) {
    throw new UsageError(`rsi ${path} has no --fields: its output has no fixed columns`, { hint: 'use --jq to pick from its JSON' });
  }
  // A listed name in any case (`NAME`) is that field; any other name is taken as typed: a member the
  // spec does not list, which rows can carry (csv/tsv give such members columns too) — unless it is
  // one edit from a listed name, which is a typo (`nmae`), or has an empty part (`scores.`).
  const listed = (head: string): Field | undefined => list.find((f) => f.name === head || f.name === head.toLowerCase());
  const names = [
    ...new Set(
      given.map((n) => {
        const [head = '', ...rest] = n.split('.');
        const field = listed(head);
        return field ? [field.name, ...rest].join('.') : n;
      }),
    ),
  ];
  const unknown = names.filter((n) => {
    const head = n.split('.')[0]!;
    if (n.split('.').some((s) => s === '')) return true;
    return !listed(head) && list.some((f) => editDistance(head.toLowerCase(), f.name) === 1);
  });
  if (unknown.length > 0) throw unknownFields('--fields', unknown, declaration);
  const batch = declaration.fields?.batch?.(line.args) ?? false;
  const json = printsDocuments(line);
  const picks: JsonPick[] = [];
  for (const name of names) {
    const [head = '', ...rest] = name.split('.');
    // A member no field declares is kept where the row has it, in every format.
    const field: Field = listed(head) ?? { name: head, json: { paths: [head] }, column: {} };
    const refusal = refused(field, batch, json, line, path, rest.length > 0);
    if (refusal) throw new UsageError(`--fields ${name}: ${refusal}`);
    if (json && 'paths' in field.json) picks.push({ key: field.name, paths: field.json.paths, rest });
  }
  return { columns: names, json: picks };
}

function refused(field: Field, batch: boolean, json: boolean, line: FieldLine, path: string, dotted: boolean): string | undefined {
  if (field.mode === 'batch' && !batch) return `${field.name} exists only when rsi ${path} reads its inputs from stdin (-)`;
  if (field.mode === 'single' && batch) return `${field.name} exists only for one input, not when reading them from stdin (-)`;
  const missing = field.requires?.(line);
  if (missing) return missing;
  if (json && 'refused' in field.json) return field.json.refused;
  // A dotted path into a JSON-only member (`scores.composite.score`) is a column of its own.
  if (!json && 'refused' in field.column && !dotted) return field.column.refused;
  if (forPeople(line.format) && field.table) return field.table.refused;
  return undefined;
}

/**
 * A JSON row (or document) with only the chosen members, each under its field's name: the name a
 * person typed is the key they read back (`--json scores_as_of` → `{"scores_as_of":…}`, `--jq
 * .scores_as_of`). The rows a member sits in stay where they are: the path up to its last array is
 * the part holding the rows (`analyses` of a status, `runs` of an analyses run), kept as it is, and
 * the member goes under the name in each of those rows (`{"analyses":[{"keyword_name":…}]}`). A
 * dotted rest below a field keeps its nesting (`--json momentum.score` → `{"momentum":{"score":…}}`).
 * The number literals the server sent are kept; a member a row lacks is left out.
 */
export function projectFields(value: unknown, picks: readonly JsonPick[]): unknown {
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const pick of picks) for (const p of pick.paths) place(value, out, p.split('.'), pick);
  return out;
}

/** Puts the member at `path` of `from` into `to` under the pick's key, keeping the parts (arrays) on the way. */
function place(from: Record<string, unknown>, to: Record<string, unknown>, path: readonly string[], pick: JsonPick): void {
  const [segment, ...rest] = path;
  if (segment === undefined || !Object.hasOwn(from, segment)) return;
  const v = from[segment];
  if (rest.length > 0 && Array.isArray(v)) {
    // A part: each of its rows gets the member under the key.
    const previous = Array.isArray(to[segment]) ? (to[segment] as unknown[]) : undefined;
    to[segment] = v.map((item, i) => {
      if (!isRecord(item)) return item;
      const into = isRecord(previous?.[i]) ? (previous[i] as Record<string, unknown>) : {};
      place(item, into, rest, pick);
      return into;
    });
    return;
  }
  if (rest.length > 0 && isRecord(v) && partAhead(v, rest)) {
    if (!isRecord(to[segment])) to[segment] = {};
    place(v, to[segment] as Record<string, unknown>, rest, pick);
    return;
  }
  if (rest.length > 0) {
    if (!isRecord(v)) return;
    place(v, to, rest, pick);
    return;
  }
  if (pick.rest.length === 0) {
    to[pick.key] = v;
    keepLiteralAs(from, segment, to, pick.key);
    return;
  }
  // A dotted rest: below the key, nested as the member has it.
  const holder: Record<string, unknown> = { [pick.key]: v };
  keepLiteralAs(from, segment, holder, pick.key);
  copyPath(holder, to, [pick.key, ...pick.rest]);
}

/** Whether an array lies on `path` before its last member: the member sits in the rows of a part below. */
function partAhead(value: Record<string, unknown>, path: readonly string[]): boolean {
  let at: unknown = value;
  for (const segment of path.slice(0, -1)) {
    if (!isRecord(at)) return false;
    at = at[segment];
    if (Array.isArray(at)) return true;
  }
  return false;
}

function copyPath(from: Record<string, unknown>, to: Record<string, unknown>, path: readonly string[]): void {
  const [segment, ...rest] = path;
  if (segment === undefined || !Object.hasOwn(from, segment)) return;
  const v = from[segment];
  if (rest.length === 0) {
    to[segment] = v;
    keepLiterals(from, to);
    return;
  }
  if (Array.isArray(v)) {
    const previous = Array.isArray(to[segment]) ? (to[segment] as unknown[]) : undefined;
    const items = v.map((item, i) => {
      if (!isRecord(item)) return item;
      const into = isRecord(previous?.[i]) ? (previous[i] as Record<string, unknown>) : {};
      copyPath(item, into, rest);
      return into;
    });
    to[segment] = items;
    return;
  }
  if (!isRecord(v)) return;
  if (!isRecord(to[segment])) to[segment] = {};
  copyPath(v, to[segment] as Record<string, unknown>, rest);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
