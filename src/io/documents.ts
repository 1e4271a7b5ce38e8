/**
 * JSON documents on stdout: a value as text for a terminal (indented, coloured as gh does) or a
 * pipe (compact), and a document through `--jq`. The JSON formats' writers (src/io/formats.ts) and
 * the printers (src/io/output.ts) share these, so a document reads the same whichever wrote it.
 */
import type { Io } from './io.js';
import { colourJson, paint } from './colors.js';
import { escapeHiddenJson, stringifyJson } from './json.js';
import { sanitizeText } from './sanitize.js';
import type { Batch } from './write.js';

/** A compiled `--jq` expression (src/io/jq.ts): runs on one document's JSON text. */
export interface JqProgram {
  run(json: string, pretty: boolean, emit: (outputs: string[]) => Promise<void>): Promise<void>;
}

/** A document as text: indented and coloured on a terminal, compact when piped. */
export function jsonText(value: unknown, io: Io): string {
  return io.stdoutIsTTY ? terminalJson(io, stringifyJson(value, 2)) : stringifyJson(value);
}

/** JSON for a person: coloured as gh does at a terminal; never in a pipe, whatever FORCE_COLOR says. */
export function terminalJson(io: Io, text: string): string {
  return io.stdoutIsTTY && io.color ? colourJson(text, paint(true)) : text;
}

/**
 * Runs `--jq` on one document's JSON text and writes its results through `out`, one a line:
 * strings raw (like `jq -r`), everything else as jq wrote it (indented on a terminal, like jq), so
 * numbers print as jq prints them; hidden characters in JSON escaped as everywhere in rsi's JSON.
 * Results written before a jq error are printed before the error is thrown.
 */
export async function writeJq(io: Io, jq: JqProgram, json: string, pretty: boolean, out: Batch): Promise<void> {
  try {
    await jq.run(json, pretty, async (outputs) => {
      let text = '';
      // A raw string is text from the service: exact to a pipe, made safe on a terminal (issue 20).
      for (const o of outputs)
        text += `${o.startsWith('"') ? (io.stdoutIsTTY ? sanitizeText(JSON.parse(o) as string) : (JSON.parse(o) as string)) : terminalJson(io, escapeHiddenJson(o))}\n`;
      await out.add(text);
    });
  } catch (error) {
    await out.flush();
    throw error;
  }
}
