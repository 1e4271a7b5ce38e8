/**
 * Every command rsi has gets a parse-and-run unit test here: a leaf command of the program tree
 * that no `describe('<path>: flags' …)` names in test/unit/commands/ (or in the two older files
 * that set the pattern) fails this test, so a new command cannot arrive without one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { loadProgram } from '../../../src/program.js';
import { fakeCtx, fakeIo } from '../../support/fakes.js';

/** Hidden plumbing for the completion scripts, exercised by test/unit/completion.test.ts. */
const EXEMPT = new Set(['__complete']);

function leaves(cmd: Command, path: string[] = []): string[] {
  if (cmd.commands.length === 0) return [path.join(' ')];
  return cmd.commands.filter((c) => !EXEMPT.has(c.name())).flatMap((c) => leaves(c, [...path, c.name()]));
}

const here = import.meta.dirname;
const sources = [
  ...readdirSync(here)
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => readFileSync(join(here, f), 'utf8')),
  // The two files that set the pattern.
  readFileSync(join(here, '..', 'analyses-run.test.ts'), 'utf8'),
  readFileSync(join(here, '..', 'status-command.test.ts'), 'utf8'),
].join('\n');

const commands = leaves(await loadProgram(fakeCtx(fakeIo(false), 'tsv')));

describe('every command has a flags test', () => {
  it('the tree is what the test expects to walk', () => {
    expect(commands).toContain('keywords search');
    expect(commands).toContain('mcp serve');
    expect(commands.length).toBeGreaterThan(15);
  });
  it.each(commands)('%s', (path) => {
    // help has no flags of its own: its describe is just "help".
    const named = path === 'help' ? "describe('help'" : `describe('${path}: flags'`;
    expect(sources.includes(named), `no unit test has ${named}`).toBe(true);
  });
});
