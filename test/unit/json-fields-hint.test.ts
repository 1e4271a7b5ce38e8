// gh's `--json name` (one field) reads as `--json --fields name` when `name` is a field of the
// command (issue 30); any other word stays an argument (`--json EGFR`), and where commander then
// says "too many arguments", rsi adds how to write a field list.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { loadDeclarations } from '../../src/commands/registry.js';
import { expandJsonFields as expandWith } from '../../src/program.js';
import { fakeIo } from '../support/fakes.js';

const declarations = await loadDeclarations();
const expandJsonFields = (argv: string[]) => expandWith(argv, declarations);

const env = () => ({ RSI_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'rsi-json-hint-')) });

describe('--json with one word after it', () => {
  it('one field of the command after --json is --fields, as gh reads it; any other word stays an argument', () => {
    expect(expandJsonFields(['projects', 'list', '--json', 'name'])).toEqual(['projects', 'list', '--json', '--fields=name']);
    expect(expandJsonFields(['--profile', 'p', 'keywords', 'get', 'EGFR', '--json', 'scores.composite.score'])).toEqual([
      '--profile',
      'p',
      'keywords',
      'get',
      'EGFR',
      '--json',
      '--fields=scores.composite.score',
    ]);
    expect(expandJsonFields(['keywords', 'get', '--json', 'EGFR'])).toEqual(['keywords', 'get', '--json', 'EGFR']);
    expect(expandJsonFields(['keywords', 'search', 'status', '--json', 'name'])).toEqual([
      'keywords',
      'search',
      'status',
      '--json',
      '--fields=name',
    ]);
    // `role` is a field of projects list, not of keywords search: an argument there.
    expect(expandJsonFields(['keywords', 'search', '--json', 'role'])).toEqual(['keywords', 'search', '--json', 'role']);
    expect(expandJsonFields(['projects', 'list', '--json', 'name,composite.score'])).toEqual([
      'projects',
      'list',
      '--json',
      '--fields=name,composite.score',
    ]);
  });

  it('projects list --json nosuch: exit 2, an unknown field, with a hint naming --json=nosuch and --fields', async () => {
    const io = fakeIo({ tty: false });
    io.stdinStream.end();
    expect(await main({ argv: ['projects', 'list', '--json', 'nosuch'], env: env(), io })).toBe(2);
    expect(io.err()).toBe(
      'rsi: --json: unknown field nosuch for rsi projects list\n' +
        'hint: valid fields: name, role, created_at, id, brief; a member the spec does not list: --json=nosuch or --fields nosuch\n',
    );
  });

  it('a mistyped field takes one try: the closest names in the first message, not "too many arguments"', async () => {
    for (const [argv, line] of [
      [['projects', 'list', '--json', 'nmae'], 'rsi: --json: unknown field nmae for rsi projects list (did you mean name?)'],
      // With the command's argument given, the word is still the field it looks like, not a second name to quote.
      [
        ['keywords', 'get', 'EGFR', '--json', 'mommentum'],
        'rsi: --json: unknown field mommentum for rsi keywords get (did you mean momentum?)',
      ],
      [
        ['keywords', 'search', 'egfr', '--json', 'nmae,id'],
        'rsi: --fields: unknown field nmae for rsi keywords search (did you mean name?)',
      ],
      [
        ['keywords', 'search', 'egfr', '--fields', 'nmae'],
        'rsi: --fields: unknown field nmae for rsi keywords search (did you mean name?)',
      ],
    ] as const) {
      const io = fakeIo({ tty: false });
      io.stdinStream.end();
      expect(await main({ argv: [...argv], env: env(), io }), argv.join(' ')).toBe(2);
      const [first, second, ...rest] = io.err().split('\n');
      expect(first).toBe(line);
      expect(second).toMatch(/^hint: valid fields: /);
      expect(rest).toEqual(['']);
    }
  });

  it('an excess argument without --json before it gets no such hint', async () => {
    const io = fakeIo({ tty: false });
    io.stdinStream.end();
    expect(await main({ argv: ['projects', 'list', 'name'], env: env(), io })).toBe(2);
    expect(io.err()).toBe("rsi: too many arguments for 'list'. Expected 0 arguments but got 1: name.\n");
  });
});
