/**
 * `--fields` and `--jq`, checked and prepared once for the command about to run, before any
 * request: an unknown field or a jq expression that does not compile is exit 2 with nothing sent.
 * The output module then shapes every document and row the command prints (io/output.ts).
 */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { FIELDS } from './fields.js';
import { shapeOutput } from '../../io/output.js';
import { sanitizeText } from '../../io/sanitize.js';

/**
 * Checks `--fields` against the command's list and compiles `--jq` (loading the jq engine only
 * then), and hands both to the output module for this run.
 */
export async function prepareOutput(ctx: Context, commandPath: string): Promise<void> {
  const { fields: given, jq } = ctx.globals();
  if (given === undefined && jq === undefined) return;
  const spec = FIELDS[commandPath];
  let fields = given;
  if (fields !== undefined) {
    if (!spec)
      throw new UsageError(`rsi ${commandPath} has no --fields: its output has no fixed columns`, {
        hint: 'use --jq to pick from its JSON',
      });
    // A dotted path (`scores.composite.score`) reads into the member or column its first name is.
    // A name the list lacks may be a member the spec does not list, which rows can carry (csv/tsv
    // give them columns too): taken, unless it is one edit from a listed name (a typo: `nmae`).
    // A listed name in any case (`NAME`); any other as typed (`rankHint`).
    const listed = spec.fields;
    fields = [
      ...new Set(
        fields.map((f) => {
          const [head = '', ...rest] = f.split('.');
          return listed.includes(head.toLowerCase()) ? [head.toLowerCase(), ...rest].join('.') : f;
        }),
      ),
    ];
    const unknown = fields.filter((f) => {
      const head = f.split('.')[0]!;
      return !listed.includes(head) && listed.some((l) => oneEditApart(head.toLowerCase(), l));
    });
    if (unknown.length > 0) {
      throw new UsageError(`--fields: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} for rsi ${commandPath}`, {
        hint: `valid fields: ${spec.fields.join(', ')}`,
      });
    }
  }
  const [program] = await Promise.all([
    jq === undefined
      ? undefined
      : import('../../io/jq.js').then((m) =>
          // $ENV is the process environment, as in jq. What the program writes to stderr (debug,
          // stderr, halt_error) goes there as written, made safe on a terminal like all server text.
          m.compileJq(jq, {
            env: ctx.env,
            signal: ctx.signal,
            stderr: (text) => void ctx.io.stderr.write(ctx.io.stderrIsTTY ? sanitizeText(text) : text),
          }),
        ),
    // jq's wasm compiles on background threads: load what the request needs meanwhile (modules
    // only; nothing is read or sent before the expression is known to compile).
    jq === undefined ? undefined : Promise.all([import('../../auth/session.js'), import('../../client/client.js')]).catch(() => undefined),
  ]);
  shapeOutput(ctx.io, { fields, rows: spec?.rows, jq: program });
}

/**
 * Whether two names are one edit apart (a letter added, dropped, changed, or two neighbours
 * swapped): the typos `--fields` refuses rather than read as a member the spec does not list.
 */
function oneEditApart(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}
