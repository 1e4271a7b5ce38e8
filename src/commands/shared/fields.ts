/**
 * `--fields` / `--json a,b` against a command's declared fields (src/commands/declaration.ts):
 * checked before any request, then turned into what the output module needs: the column names for
 * csv, tsv and the table, and a projection of JSON rows that keeps each chosen member at its path
 * (`--json momentum` on a card: `{"scores":{"momentum":{…}}}`; docs/scripting.md, "Choosing
 * fields"). A field a format has no member or column for is refused there, exit 2, with why and
 * what to use instead: never an empty `{}` with exit 0.
 */
import type { CommandDeclaration, Field } from '../declaration.js';
import { UsageError } from '../../errors.js';
import { forPeople, type OutputFormat } from '../../formats.js';
import { keepLiterals } from '../../io/json.js';
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
  /** The JSON paths, in the order chosen, that the projection keeps. */
  paths: readonly string[];
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
  const paths: string[] = [];
  for (const name of names) {
    const [head = '', ...rest] = name.split('.');
    // A member no field declares is kept where the row has it, in every format.
    const field: Field = listed(head) ?? { name: head, json: { paths: [head] }, column: true };
    const refusal = refused(field, batch, json, line, path, rest.length > 0);
    if (refusal) throw new UsageError(`--fields ${name}: ${refusal}`);
    if (json && 'paths' in field.json) paths.push(...field.json.paths.map((p) => [p, ...rest].join('.')));
  }
  return { columns: names, paths };
}

function refused(field: Field, batch: boolean, json: boolean, line: FieldLine, path: string, dotted: boolean): string | undefined {
  if (field.mode === 'batch' && !batch) return `${field.name} exists only when rsi ${path} reads its inputs from stdin (-)`;
  if (field.mode === 'single' && batch) return `${field.name} exists only for one input, not when reading them from stdin (-)`;
  const missing = field.requires?.(line);
  if (missing) return missing;
  if (json && 'refused' in field.json) return field.json.refused;
  // A dotted path into a JSON-only member (`scores.composite.score`) is a column of its own.
  if (!json && field.column !== true && !dotted) return field.column.refused;
  if (forPeople(line.format) && field.table) return field.table.refused;
  return undefined;
}

/**
 * A JSON row (or document) with only the members at `paths`, each where it was: the objects on the
 * way are copied with just those members, an array on the way keeps every element (each
 * projected), and the number literals the server sent are kept. A member a row lacks is left out.
 */
export function projectMembers(value: unknown, paths: readonly string[]): unknown {
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const p of paths) copyPath(value, out, p.split('.'));
  return out;
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
