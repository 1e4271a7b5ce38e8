/**
 * Flag validation at the boundary, synchronous and zod-free (help never pays for it): a failure is
 * a UsageError naming the flag and what is allowed, raised before any request is sent.
 */
import { UsageError } from '../../errors.js';
import type { Context } from '../../context.js';

/**
 * An integer flag within [min, max], written as digits (a sign allowed, spaces around ignored);
 * undefined stays undefined. Checked by hand, synchronously: the rule is one line, and zod would
 * have to be loaded (asynchronously, to keep it off the help path) for nothing.
 */
export function intFlag(flag: string, raw: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (raw === undefined) return undefined;
  const range = max === Number.MAX_SAFE_INTEGER ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`;
  const text = String(raw).trim();
  const value = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) throw new UsageError(`${flag} must be ${range} (got "${String(raw)}")`);
  return value;
}

/** One of `allowed`, exactly; undefined stays undefined. */
export function enumFlag<T extends string>(flag: string, raw: unknown, allowed: readonly T[]): T | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !(allowed as readonly string[]).includes(raw))
    throw new UsageError(`${flag} must be one of ${allowed.join(', ')} (got "${String(raw)}")`);
  return raw as T;
}

/** commander's parser for a repeatable option: every occurrence, in order. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function nonEmpty(flag: string, raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  const text = String(raw).trim();
  if (!text) throw new UsageError(`${flag} must not be empty`);
  return text;
}

/** Reads a file or stdin ("-") as text, with clear errors for the cases users hit. */
export async function readInput(flag: string, path: string, ctx: Context, maxBytes = 10 * 1024 * 1024): Promise<string> {
  if (path === '-') {
    if (ctx.io.stdinIsTTY)
      throw new UsageError(`${flag} - reads from stdin, but stdin is a terminal`, { hint: 'pipe the data in, or give a file path' });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of ctx.io.stdin) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) throw new UsageError(`${flag}: stdin is larger than ${maxBytes / 1024 / 1024} MiB`);
      chunks.push(Buffer.from(chunk as Buffer));
    }
    return Buffer.concat(chunks).toString('utf8');
  }
  const { readFile, stat } = await import('node:fs/promises');
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw new UsageError(`${flag}: ${path} is a directory`);
    if (info.size > maxBytes) throw new UsageError(`${flag}: ${path} is larger than ${maxBytes / 1024 / 1024} MiB`);
    return await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : (error as Error).message;
    throw new UsageError(`${flag}: cannot read ${path}: ${why}`);
  }
}

/** Parses JSON input, naming the flag and the position of a syntax error. */
export function parseJsonInput(flag: string, text: string, source: string): unknown {
  if (!text.trim()) throw new UsageError(`${flag}: ${source} is empty`);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${flag}: ${source} is not valid JSON (${(error as Error).message})`);
  }
}

/** A second --jq would silently replace the first: one filter, or a pipe inside it. */
export function oneJq(value: string, previous: string | undefined): string {
  if (previous !== undefined) {
    throw new UsageError("--jq was given twice: give one filter (combine them with a pipe, as in --jq '.a | .b')");
  }
  return value;
}
