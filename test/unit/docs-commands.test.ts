// docs/commands.md cannot drift from the command tree: every command path and every long flag of the
// real program (as --help shows them) must appear in it.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { loadProgram } from '../../src/program.js';
import { fakeCtx, fakeIo } from '../support/fakes.js';

const doc = readFileSync(new URL('../../docs/commands.md', import.meta.url), 'utf8');

function fakeContext() {
  return fakeCtx(fakeIo(), 'tsv');
}

interface Entry {
  path: string;
  flags: string[];
}

function walk(cmd: Command, prefix: string[], out: Entry[]): void {
  for (const sub of cmd.commands) {
    const path = [...prefix, sub.name()];
    out.push({ path: path.join(' '), flags: sub.options.map((o) => o.long).filter((l): l is string => !!l && l !== '--help') });
    walk(sub, path, out);
  }
}

const program = await loadProgram(fakeContext());
const entries: Entry[] = [];
walk(program, [], entries);

/** Flags src/program.ts adds to every command with fields: one row of the global table documents them. */
const SHARED_FLAGS = ['--header'];

describe('docs/commands.md', () => {
  it('finds the command tree', () => {
    expect(entries.map((e) => e.path)).toEqual(expect.arrayContaining(['keywords search', 'projects create', 'api', 'completion']));
  });

  it('documents every global flag', () => {
    for (const o of program.options) if (o.long) expect(doc, `global ${o.long}`).toContain(`\`${o.long}`);
    for (const flag of SHARED_FLAGS) expect(doc, `shared ${flag}`).toMatch(new RegExp(`^\\| \`${flag}\` \\|`, 'm'));
  });

  for (const e of entries) {
    it(`documents rsi ${e.path} and its flags`, () => {
      expect(doc, `command "rsi ${e.path}"`).toContain(`rsi ${e.path}`);
      // A section for every leaf command.
      const leaf = !program.commands.find((c) => c.name() === e.path.split(' ')[0])?.commands.length || e.path.includes(' ');
      if (leaf) expect(doc, `a "## rsi ${e.path}" section`).toContain(`## rsi ${e.path}\n`);
      // Each flag appears in that command's own section (from its heading to the next one).
      const start = doc.indexOf(`## rsi ${e.path}\n`);
      const end = doc.indexOf('\n## ', start + 1);
      const section = start < 0 ? '' : doc.slice(start, end < 0 ? undefined : end);
      // A flag every command that prints rows has (`--header`) is documented once, in the global table.
      for (const flag of e.flags.filter((f) => !SHARED_FLAGS.includes(f))) {
        expect(section, `rsi ${e.path} ${flag}`).toMatch(new RegExp(`${flag}(?![A-Za-z0-9_-])`));
      }
    });
  }
});
