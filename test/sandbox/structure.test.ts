// The sandbox's module graph has no circle: server.ts wires the modules together and none of them
// imports server.ts back (the shared context lives in context.ts). Static imports count, type-only
// ones too; a dynamic import() is a deliberate lazy load (e.g. a route loaded on first use) and
// does not.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../src/sandbox');

function graph(): Map<string, string[]> {
  const g = new Map<string, string[]>();
  for (const name of readdirSync(DIR).filter((n) => n.endsWith('.ts'))) {
    const text = readFileSync(join(DIR, name), 'utf8');
    const deps = [...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*['"]\.\/([^'"]+)\.js['"]/gm)].map((m) => `${m[1]}.ts`);
    g.set(name, deps);
  }
  return g;
}

/** Every cycle as "a → b → a", found by depth-first search. */
function cycles(g: Map<string, string[]>): string[] {
  const found: string[] = [];
  const visit = (node: string, path: string[]): void => {
    if (path.includes(node)) {
      found.push([...path.slice(path.indexOf(node)), node].join(' → '));
      return;
    }
    for (const next of g.get(node) ?? []) visit(next, [...path, node]);
  };
  for (const node of g.keys()) visit(node, []);
  return found;
}

describe('sandbox module graph', () => {
  it('reads the imports it is meant to check', () => {
    const g = graph();
    expect(g.get('server.ts')).toEqual(expect.arrayContaining(['api.ts', 'oauth.ts', 'context.ts']));
    expect(g.get('oauth.ts')).toContain('context.ts');
    // The detector itself finds a planted circle.
    expect(
      cycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', ['a.ts']],
        ]),
      ),
    ).toContain('a.ts → b.ts → a.ts');
  });

  it('has no circle, and nothing imports server.ts', () => {
    const g = graph();
    expect(cycles(g)).toEqual([]);
    expect([...g].filter(([, deps]) => deps.includes('server.ts')).map(([name]) => name)).toEqual([]);
  });

  it('context.ts imports none of the modules that use it', () => {
    expect(
      graph()
        .get('context.ts')!
        .filter((d) => !['clock.ts', 'faults.ts'].includes(d)),
    ).toEqual([]);
  });
});
