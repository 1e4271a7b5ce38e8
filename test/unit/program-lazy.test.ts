/**
 * The tree built for one command (issue 24: only the command given is built) must be that command
 * exactly as in the whole tree: same help, same flags, same subcommands.
 */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, commandWord } from '../../src/program.js';
import { fakeCtx, fakeIo } from '../support/fakes.js';

function describeTree(cmd: Command, path = ''): string[] {
  const here = `${path}${cmd.name()}`;
  return [`${here}\n${cmd.helpInformation()}`, ...cmd.commands.flatMap((c) => describeTree(c, `${here} `))];
}

const root = buildProgram(fakeCtx(fakeIo(), 'tsv'));

describe('commandWord', () => {
  it.each([
    [['keywords', 'search', 'egfr', '--json'], 'keywords'],
    [['--json', 'projects', 'list'], 'projects'],
    [['--profile', 'work', 'status', 'P'], 'status'],
    [['--format', 'csv', '--base-url', 'http://x', 'signals', 'P'], 'signals'],
    [['--profile=work', 'mcp', 'tools'], 'mcp'],
    [['--jq', '.data', 'keywords', 'search', 'x'], 'keywords'],
    [['--fields', 'name', '--time', 'absolute', 'opportunities', 'P'], 'opportunities'],
    [['--http-timeout', '5', '--no-pager', '--wide', 'api', '/projects'], 'api'],
  ])('%j → %s', (argv, word) => {
    expect(commandWord(argv, root)).toBe(word);
  });

  it.each([
    [[]],
    [['--help']],
    [['-h']],
    [['--version']],
    [['help', 'keywords']],
    [['completion', 'bash']],
    [['__complete', 'projects']],
    [['keyword', 'search']],
    [['--', 'keywords']],
    [['--profile', 'keywords']],
  ])('%j → the whole tree', (argv) => {
    expect(commandWord(argv, root)).toBeUndefined();
  });
});

describe('the tree for one command', () => {
  it('is that command exactly as in the whole tree, and nothing else', () => {
    const words = root.commands.map((c) => c.name()).filter((w) => commandWord([w], root) !== undefined);
    expect(words).toContain('keywords');
    expect(words.length).toBeGreaterThan(10);
    for (const word of words) {
      const one = buildProgram(fakeCtx(fakeIo(), 'tsv'), [word, '--help']);
      expect(one.commands.map((c) => c.name())).toEqual([word]);
      expect(describeTree(one.commands[0]!)).toEqual(describeTree(root.commands.find((c) => c.name() === word)!));
      expect(one.options.map((o) => o.flags)).toEqual(root.options.map((o) => o.flags));
    }
  });

  it('keeps commander’s errors: a mistyped subcommand is named with a suggestion', async () => {
    const io = fakeIo();
    const program = buildProgram(fakeCtx(io, 'tsv'), ['keywords', 'serch']);
    await expect(program.parseAsync(['keywords', 'serch'], { from: 'user' })).rejects.toMatchObject({ code: 'commander.unknownCommand' });
    expect(io.err()).toMatch(/^rsi: unknown command 'serch' \(did you mean search\?\)/);
  });

  it('a mistyped command gets the whole tree, so the suggestion can name any command', async () => {
    const io = fakeIo();
    const program = buildProgram(fakeCtx(io, 'tsv'), ['keywrds', 'search']);
    expect(program.commands.length).toBe(root.commands.length);
    await expect(program.parseAsync(['keywrds', 'search'], { from: 'user' })).rejects.toMatchObject({ code: 'commander.unknownCommand' });
    expect(io.err()).toMatch(/did you mean keywords\?/);
  });
});
