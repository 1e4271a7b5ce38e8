// The command registry (src/commands/registry.ts) is the one list of commands: the commander tree
// is built from it (its words are the paths of the declarations its loaders return, checked here),
// and package.json's `man` list (what npm installs) must name one page per declared command, so a
// command added to the registry without its man page fails here.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { INDEX, loadDeclarations } from '../../src/commands/registry.js';
import { commandSummaries } from '../../src/commands/summaries.js';
import { createContext } from '../../src/context.js';
import { loadProgram } from '../../src/program.js';
import { fakeIo } from '../support/fakes.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { man: string[] };

function paths(cmd: Command, prefix: string[] = []): string[] {
  return cmd.commands.flatMap((c) => {
    const path = [...prefix, c.name()];
    return [path.join(' '), ...paths(c, path)];
  });
}

const DECLARATIONS = await loadDeclarations();

describe('the command registry', () => {
  const visible = [...DECLARATIONS.values()].filter((d) => !d.hidden);

  it("package.json's man list is one page per declared command, rsi.1 first", () => {
    const pages = visible.map((d) => `dist/man/${d.path === '' ? 'rsi' : `rsi-${d.path.replace(/ /g, '-')}`}.1`);
    expect(PKG.man[0]).toBe('dist/man/rsi.1');
    expect([...PKG.man].sort()).toEqual(pages.sort());
  });

  it('the commander tree has exactly the declared commands, each with its declared description', async () => {
    const io = fakeIo();
    const ctx = createContext({ io, env: {}, signal: new AbortController().signal, version: '0.0.0', flags: () => ({}) });
    const program = await loadProgram(ctx);
    expect(paths(program).sort()).toEqual([...DECLARATIONS.keys()].filter((p) => p !== '').sort());
    const byPath = new Map<string, Command>();
    const walk = (cmd: Command, prefix: string[]): void => {
      for (const c of cmd.commands) {
        byPath.set([...prefix, c.name()].join(' '), c);
        walk(c, [...prefix, c.name()]);
      }
    };
    walk(program, []);
    for (const [path, d] of DECLARATIONS) if (path !== '') expect(byPath.get(path)?.description(), path).toBe(d.description);
  });

  it('each word of the index is the path of the declaration its loader returns, and each module is listed once', async () => {
    for (const { name, load } of INDEX) expect((await load()).command.path, name).toBe(name);
    expect(new Set(INDEX.map((e) => e.name)).size).toBe(INDEX.length);
  });

  it('the root help lists every command by its declared description, hidden ones hidden', async () => {
    const top = [...DECLARATIONS.values()].filter((d) => d.path !== '' && !d.path.includes(' '));
    expect(await commandSummaries()).toEqual(
      top.map((d) => ({ name: d.path, description: d.description, ...(d.hidden ? { hidden: true } : {}) })),
    );
  });

  it('a field name is declared once per command', () => {
    for (const d of DECLARATIONS.values()) {
      const names = d.fields?.list.map((f) => f.name) ?? [];
      expect(new Set(names).size, d.path).toBe(names.length);
    }
  });
});
