/**
 * Tool arguments from the command line: `--arg k=v` pairs converted by the types the tool's
 * `inputSchema` declares (integer, number, boolean, array, object, string), merged over an
 * `--input` JSON object, then validated against the whole schema before anything is sent. A bad
 * argument is a UsageError (exit 2) naming it.
 */
import { UsageError } from '../errors.js';

interface PropSchema {
  type?: string | string[];
  items?: PropSchema;
  enum?: unknown[];
  [k: string]: unknown;
}

export interface InputSchema {
  type?: string;
  properties?: Record<string, PropSchema>;
  required?: string[];
  additionalProperties?: unknown;
  [k: string]: unknown;
}

export function buildArguments(
  tool: { name: string; inputSchema: InputSchema },
  pairs: readonly string[],
  input: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const props = tool.inputSchema.properties ?? {};
  const known = Object.keys(props);
  const args: Record<string, unknown> = { ...(input ?? {}) };
  const fromFlags = new Set<string>();
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--arg must be KEY=VALUE (got "${pair}")`);
    const key = pair.slice(0, eq).trim();
    const raw = pair.slice(eq + 1);
    const prop = props[key];
    if (!prop && (known.length > 0 || tool.inputSchema.additionalProperties === false)) {
      throw new UsageError(`the tool ${tool.name} has no argument "${key}"`, {
        hint: known.length ? `its arguments: ${known.join(', ')}` : 'it takes no arguments',
      });
    }
    const value = convert(key, raw, prop);
    if (isType(prop, 'array') && !raw.trim().startsWith('[')) {
      // Repeated --arg k=a --arg k=b builds the array.
      const previous = fromFlags.has(key) && Array.isArray(args[key]) ? (args[key] as unknown[]) : [];
      args[key] = [...previous, ...(value as unknown[])];
    } else {
      args[key] = value;
    }
    fromFlags.add(key);
  }
  const missing = (tool.inputSchema.required ?? []).filter((k) => args[k] === undefined);
  if (missing.length) {
    throw new UsageError(`the tool ${tool.name} needs ${missing.map((k) => `--arg ${k}=…`).join(' and ')}`);
  }
  return args;
}

function types(prop: PropSchema | undefined): string[] {
  if (!prop?.type) return [];
  return Array.isArray(prop.type) ? prop.type : [prop.type];
}

function isType(prop: PropSchema | undefined, type: string): boolean {
  return types(prop).includes(type);
}

function convert(key: string, raw: string, prop: PropSchema | undefined): unknown {
  const want = types(prop);
  const bad = (expected: string): UsageError => new UsageError(`--arg ${key}: expected ${expected} (got "${raw}")`);
  if (want.length === 0) return parseJsonOr(raw);
  if (want.includes('null') && raw === 'null') return null;
  if (want.includes('array')) {
    if (raw.trim().startsWith('[')) {
      const parsed = parseJsonOr(raw, undefined);
      if (!Array.isArray(parsed)) throw bad('a JSON array');
      return parsed;
    }
    return [convert(key, raw, prop?.items ?? {})];
  }
  if (want.includes('object')) {
    const parsed = parseJsonOr(raw, undefined);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw bad('a JSON object');
    return parsed;
  }
  if (want.includes('integer') || want.includes('number')) {
    const text = raw.trim();
    const ok = want.includes('integer') && !want.includes('number') ? /^-?\d+$/.test(text) : text !== '' && Number.isFinite(Number(text));
    if (ok) return Number(text);
    if (!want.includes('string')) throw bad(want.includes('integer') && !want.includes('number') ? 'an integer' : 'a number');
  }
  if (want.includes('boolean')) {
    const b = { true: true, false: false, yes: true, no: false, '1': true, '0': false }[raw.trim().toLowerCase()];
    if (b !== undefined) return b;
    if (!want.includes('string')) throw bad('true or false');
  }
  return raw;
}

function parseJsonOr(raw: string, fallback: unknown = raw): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return fallback;
  }
}

/** Validates the arguments against the whole schema with the SDK's JSON Schema validator (ajv). */
export async function validateArguments(tool: { name: string; inputSchema: InputSchema }, args: Record<string, unknown>): Promise<void> {
  const { AjvJsonSchemaValidator } = await import('@modelcontextprotocol/sdk/validation/ajv');
  let check: ReturnType<InstanceType<typeof AjvJsonSchemaValidator>['getValidator']>;
  try {
    check = new AjvJsonSchemaValidator().getValidator(tool.inputSchema as never);
  } catch {
    return; // A schema ajv cannot compile is the server's to judge.
  }
  const result = check(args);
  if (!result.valid) {
    // ajv says "data/limit must be <= 100": name the argument as the user typed it.
    const text = result.errorMessage.replace(/\bdata\/([\w.-]+)/g, '$1').replace(/\bdata\b/g, 'arguments');
    throw new UsageError(`invalid arguments for the tool ${tool.name}: ${text}`);
  }
}
