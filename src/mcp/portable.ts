/**
 * The tool list's JSON Schemas, strict and portable. Every input schema is closed
 * (`additionalProperties: false`, from zod's strictObject: an unknown argument is refused, naming
 * it). And every schema is written in the subset the common hosts accept, some of which take only
 * an OpenAPI-like subset of JSON Schema: no empty `additionalProperties: {}` (it says nothing the
 * default does not; zod writes it for a loose object) and no type arrays (`["string", "null"]`,
 * zod's nullable) but the same set as `anyOf` of single types. What the schemas allow is unchanged.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

type Json = Record<string, unknown>;

/** One schema, its sub-schemas walked: the same values allowed, in the portable forms. */
export function portable(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(portable);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema as Json)) {
    if (key === 'additionalProperties' && value !== null && typeof value === 'object' && Object.keys(value).length === 0) continue;
    // `properties` maps names to schemas: walk each (a property may be named like a keyword).
    out[key] =
      key === 'properties' && value !== null && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, portable(v)]))
        : portable(value);
  }
  if (Array.isArray(out.type)) {
    const types = out.type as string[];
    delete out.type;
    if (types.length === 1) out.type = types[0];
    else if (out.anyOf === undefined) out.anyOf = types.map((type) => ({ type }));
    // Both a type list and an anyOf must hold: the list joins as one more condition.
    else out.allOf = [...((out.allOf as unknown[] | undefined) ?? []), { anyOf: types.map((type) => ({ type })) }];
  }
  return out;
}

/** A tool's input schema: closed, and portable. */
export function inputJsonSchema(input: z.ZodObject): Tool['inputSchema'] {
  return portable(z.toJSONSchema(input, { target: 'draft-7', io: 'input' })) as Tool['inputSchema'];
}

/** A tool's output schema (loose as the service's replies are), portable. */
export function outputJsonSchema(output: z.ZodObject): NonNullable<Tool['outputSchema']> {
  return portable(z.toJSONSchema(output, { target: 'draft-7', io: 'output' })) as NonNullable<Tool['outputSchema']>;
}
