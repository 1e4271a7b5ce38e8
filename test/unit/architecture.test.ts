import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The layers of docs/architecture.md, and which may import which. An edge not listed fails.
const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
const ALLOWED: Record<string, readonly string[]> = {
  root: ['commands', 'io', 'client', 'auth', 'http', 'storage', 'errors', 'program', 'main'],
  program: ['commands', 'errors'],
  commands: ['commands', 'client', 'auth', 'io', 'http', 'storage', 'errors', 'sandbox'],
  client: ['client', 'http', 'errors'],
  auth: ['auth', 'http', 'storage', 'io', 'errors', 'commands-context'],
  http: ['http', 'errors', 'io'],
  storage: ['storage', 'errors', 'io'],
  io: ['io', 'errors', 'commands-context'],
  sandbox: ['sandbox'],
  errors: [],
  'commands-context': ['io', 'http', 'client', 'errors'],
};

function layerOf(file: string): string {
  const rel = relative(SRC, file).replaceAll('\\', '/');
  if (rel === 'commands/context.ts') return 'commands-context';
  if (!rel.includes('/')) return rel === 'main.ts' ? 'root' : rel.replace(/\.ts$/, '');
  return rel.split('/')[0]!;
}

function* walk(dir: string): Generator<string> {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (path.endsWith('.ts')) yield path;
  }
}

describe('architecture', () => {
  it('imports follow the allowed dependency direction', () => {
    const violations: string[] = [];
    for (const file of walk(SRC)) {
      const from = layerOf(file);
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
        if (match[1]!.endsWith('package.json')) continue;
        const target = layerOf(resolve(dirname(file), match[1]!.replace(/\.js$/, '.ts')));
        if (target === from) continue;
        const allowed = ALLOWED[from] ?? [];
        const ok = allowed.includes(target) || (target === 'commands-context' && allowed.includes('commands'));
        if (!ok) violations.push(`${relative(SRC, file)} → ${match[1]} (${from} → ${target})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('the sandbox imports nothing from the CLI layers', () => {
    for (const file of walk(join(SRC, 'sandbox'))) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toMatch(/from\s+['"]\.\.\/\.\.\/(commands|client|auth|http|storage|io)\//);
    }
  });
});
