/**
 * The two bundles (src/build/bundle.mjs): dist/rsi.cjs leaves out what FULL_ONLY names (the MCP SDK,
 * the sandbox's server), and the loaders give dist/rsi-full.cjs to the runs that reach it
 * (`needsFullBundle`, src/exe/load.ts). test/journeys/startup-load.test.ts runs both; here, the rule
 * and the places that make it true.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FULL_ONLY } from '../../src/build/bundle.mjs';
import { needsFullBundle } from '../../src/exe/load.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('which bundle a run compiles', () => {
  it('the full one for mcp, scoreboard, sandbox and --from-brief, wherever they stand before --', () => {
    for (const argv of [
      ['mcp', 'serve'],
      ['--profile', 'work', 'mcp', 'call', 'search_keywords'],
      ['scoreboard', 'My project'],
      ['sandbox', '--port', '0'],
      ['help', 'mcp'],
      ['projects', 'create', 'x', '--from-brief', 'brief.md'],
      ['projects', 'create', 'x', '--from-brief=brief.md'],
    ])
      expect(needsFullBundle(argv), argv.join(' ')).toBe(true);
    for (const argv of [
      [],
      ['keywords', 'search', 'egfr', '--json'],
      ['projects', 'create', 'x'],
      ['api', '--', 'mcp'],
      ['keywords', 'search', '--', 'sandbox'],
      ['keywords', 'search', 'mcps'],
    ])
      expect(needsFullBundle(argv), argv.join(' ')).toBe(false);
  });

  it('only the modules those runs reach import what rsi.cjs leaves out', () => {
    // A new import of the MCP SDK or the sandbox's server elsewhere fails here: a run of another
    // command would meet rsi.cjs's stub. Move it behind one of these, or add its words to needsFullBundle.
    const importers = sources(join(ROOT, 'src')).filter((file) => {
      const text = readFileSync(file, 'utf8');
      return [...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].some(([, spec]) =>
        FULL_ONLY.test(spec!.startsWith('.') ? join(dirname(file), spec!) : spec!),
      );
    });
    expect(importers.map((f) => relative(ROOT, f)).sort()).toEqual([
      // `rsi sandbox`
      'src/commands/sandbox/sandbox.ts',
      // `rsi mcp call`'s argument checks (ajv)
      'src/mcp/args.ts',
      // ctx.mcp(): `rsi mcp call|tools`, `rsi scoreboard`, `projects create --from-brief` (src/commands/mcp/connect.ts)
      'src/mcp/client.ts',
      // `rsi mcp serve`, and the sandbox's own MCP endpoint
      'src/mcp/server.ts',
    ]);
  });
});
