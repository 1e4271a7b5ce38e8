/**
 * `--fields` and `--jq`, checked and prepared once for the command about to run, before any
 * request: an unknown field or a jq expression that does not compile is exit 2 with nothing sent.
 * The shape goes into the run's one output (`ctx.prepareOutput`), which every printer is handed.
 */
import { UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import type { CommandDeclaration } from '../declaration.js';
import { chooseFields, projectFields } from './fields.js';
import type { OutputShape } from '../../io/formats.js';
import { sanitizeText } from '../../io/sanitize.js';

/**
 * Checks `--fields` against the command's declared fields (for this format, and one input or many)
 * and compiles `--jq` (loading the jq engine only then): the shape of this run's output, the chosen
 * names for the columns, the projection for JSON.
 */
export async function outputShape(
  ctx: Context,
  declaration: CommandDeclaration,
  line: { args: readonly unknown[]; opts: Readonly<Record<string, unknown>> },
): Promise<OutputShape> {
  const { fields, jq, format } = ctx.globals();
  if (fields === undefined && jq === undefined) return {};
  const text = jq === undefined ? undefined : declaration.printsText?.(line);
  if (text !== undefined) throw new UsageError(`--jq: rsi ${declaration.path} ${text}, not JSON`, { hint: 'run it without --jq' });
  const chosen = fields === undefined ? undefined : chooseFields(declaration, fields, { format, ...line });
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
  return {
    fields: chosen?.columns,
    rows: declaration.fields?.rows,
    project: chosen && ((row) => projectFields(row, chosen.json)),
    jq: program,
  };
}
