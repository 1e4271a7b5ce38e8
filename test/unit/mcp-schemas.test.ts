// Issue 42 item 4: the tool list's schemas are strict and portable. Every input schema is closed
// (additionalProperties: false, nested objects too) and an unknown argument is refused, naming it,
// before anything is sent; no schema has an empty `additionalProperties: {}` or a type array.
import { afterEach, describe, expect, it } from 'vitest';
import { portable } from '../../src/mcp/portable.js';
import { TOOLS } from '../../src/mcp/server.js';
import { ALPHA, fakeRemote, ORIGIN, type Served, serve, text } from './mcp-tools.harness.js';

let s: Served | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

/** Every (path, schema) in a JSON Schema, walked through each keyword that holds schemas. */
function* walk(schema: unknown, path: string): Generator<[string, Record<string, unknown>]> {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return;
  const node = schema as Record<string, unknown>;
  yield [path, node];
  for (const [k, v] of Object.entries(node.properties ?? {})) yield* walk(v, `${path}.${k}`);
  if (node.items) yield* walk(node.items, `${path}[]`);
  if (node.additionalProperties && typeof node.additionalProperties === 'object') yield* walk(node.additionalProperties, `${path}{}`);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    for (const [i, v] of ((node[key] as unknown[] | undefined) ?? []).entries()) yield* walk(v, `${path}.${key}[${i}]`);
  }
}

async function everyTool(): Promise<Served> {
  const remote = fakeRemote([], () => ({ content: [] }));
  return serve({ allowWrite: true, remote: remote.deps, signIns: { now: { baseUrl: ORIGIN, api: {}, mcp: {} } }, confirmInChat: true });
}

describe('tool schemas', () => {
  it('every tool is listed, each input schema closed at every object, nothing empty or type-listed anywhere', async () => {
    s = await everyTool();
    const tools = (await s.client.listTools()).tools;
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS.map((t) => t.name).sort());
    const problems: string[] = [];
    for (const t of tools) {
      expect(t.inputSchema.additionalProperties, t.name).toBe(false);
      for (const [path, node] of walk(t.inputSchema, `${t.name}.in`)) {
        if (node.type === 'object' && node.properties && node.additionalProperties !== false) problems.push(`${path}: open object`);
      }
      for (const [path, node] of [...walk(t.inputSchema, `${t.name}.in`), ...walk(t.outputSchema, `${t.name}.out`)]) {
        const extra = node.additionalProperties;
        if (extra !== null && typeof extra === 'object' && Object.keys(extra).length === 0)
          problems.push(`${path}: additionalProperties {}`);
        if (Array.isArray(node.type)) problems.push(`${path}: type ${JSON.stringify(node.type)}`);
      }
    }
    expect(problems).toEqual([]);
    // The nullable members are still nullable, in anyOf form.
    const keyword = tools.find((t) => t.name === 'get_keyword')!;
    expect((keyword.outputSchema!.properties as Record<string, unknown>).description).toEqual({
      anyOf: [{ type: 'string' }, { type: 'null' }],
    });
  });

  it.each([
    ['list_projects', { limit: 3 }, 'limit'],
    ['project_status', { project: ALPHA, verbose: true }, 'verbose'],
    ['run_analyses', { project: ALPHA, top: { type: 'target', limit: 1, sort: 'x' } }, 'sort'],
    ['create_project', { name: 'x', watchlist_items: [{ entity_id: 'e', entity_type: 't', colour: 'red' }] }, 'colour'],
  ])('%s refuses an unknown argument, naming it, and sends nothing', async (name, args, unknown) => {
    s = await everyTool();
    const r = await s.call(name, args);
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/Input validation error/);
    expect(text(r)).toContain(`"${unknown}"`);
    expect(s.api.calls).toEqual([]);
  });
});

describe('portable', () => {
  it('drops an empty additionalProperties, turns a type list into anyOf, keeps the rest (a property named like a keyword too)', () => {
    expect(
      portable({
        type: 'object',
        additionalProperties: {},
        properties: { type: { type: ['string', 'null'], maxLength: 3 }, n: { type: ['number'] }, x: { additionalProperties: false } },
      }),
    ).toEqual({
      type: 'object',
      properties: {
        type: { anyOf: [{ type: 'string' }, { type: 'null' }], maxLength: 3 },
        n: { type: 'number' },
        x: { additionalProperties: false },
      },
    });
    expect(portable({ type: ['string', 'null'], anyOf: [{ minLength: 1 }, { type: 'null' }] })).toEqual({
      anyOf: [{ minLength: 1 }, { type: 'null' }],
      allOf: [{ anyOf: [{ type: 'string' }, { type: 'null' }] }],
    });
  });
});
