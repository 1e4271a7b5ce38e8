/**
 * A run loads and builds only the command its line names (issues 24 and 45), and that command must
 * be exactly as in the whole tree: same help, same flags, same subcommands. The root's own screen
 * and `rsi help …` list the other commands by name and description without loading them.
 */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { commandsNeeded, loadProgram } from '../../src/program.js';
import { fakeCtx, fakeIo } from '../support/fakes.js';

function describeTree(cmd: Command, path = ''): string[] {
  const here = `${path}${cmd.name()}`;
  return [`${here}\n${cmd.helpInformation()}`, ...cmd.commands.flatMap((c) => describeTree(c, `${here} `))];
}

const root = await loadProgram(fakeCtx(fakeIo(), 'tsv'));

describe('commandsNeeded', () => {
  it.each([
    [['keywords', 'search', 'egfr', '--json'], 'keywords'],
    [['--json', 'projects', 'list'], 'projects'],
    [['--profile', 'work', 'status', 'P'], 'status'],
    [['--format', 'csv', '--base-url', 'http://x', 'signals', 'P'], 'signals'],
    [['--profile=work', 'mcp', 'tools'], 'mcp'],
    [['--jq', '.data', 'keywords', 'search', 'x'], 'keywords'],
    [['--fields', 'name', '--time', 'absolute', 'opportunities', 'P'], 'opportunities'],
    [['--http-timeout', '5', '--no-pager', '--wide', 'api', '/projects'], 'api'],
    [['__complete', 'projects'], '__complete'],
    [['keywords', '--', 'x'], 'keywords'],
  ])('%j → %s alone', (argv, word) => {
    expect(commandsNeeded(argv, root)).toEqual({ build: [word], list: false });
  });

  it.each([
    [[], []],
    [['--help'], []],
    [['-h'], []],
    [['--version'], []],
    [['--profile', 'keywords'], []],
    [['help'], ['help']],
    [['help', 'environment'], ['help']],
    [['help', 'schema', 'status'], ['help']],
    [['help', 'help'], ['help']],
    [
      ['help', 'keywords', 'search'],
      ['help', 'keywords'],
    ],
    [
      ['--json', 'help', 'analyses', 'run'],
      ['help', 'analyses'],
    ],
  ])('%j → %j, the others listed', (argv, build) => {
    expect(commandsNeeded(argv, root)).toEqual({ build, list: true });
  });

  it.each([[['help', 'reference']], [['completion', 'bash']], [['--', 'keywords']]])('%j → every command', (argv) => {
    expect(commandsNeeded(argv, root)).toBeUndefined();
  });
});

describe('the tree for one command', () => {
  it('is that command exactly as in the whole tree, and nothing else', async () => {
    const words = root.commands.map((c) => c.name()).filter((w) => commandsNeeded([w], root)?.list === false);
    expect(words).toContain('keywords');
    expect(words.length).toBeGreaterThan(10);
    for (const word of words) {
      const one = await loadProgram(fakeCtx(fakeIo(), 'tsv'), [word, '--help']);
      expect(one.commands.map((c) => c.name())).toEqual([word]);
      expect(describeTree(one.commands[0]!)).toEqual(describeTree(root.commands.find((c) => c.name() === word)!));
      expect(one.options.map((o) => o.flags)).toEqual(root.options.map((o) => o.flags));
    }
  });

  it('the root screen from the summaries is the whole tree’s, and loads no command', async () => {
    const listed = await loadProgram(fakeCtx(fakeIo(), 'tsv'), ['--help']);
    expect(listed.helpInformation()).toBe(root.helpInformation());
    expect(listed.commands.map((c) => c.name())).toEqual(root.commands.map((c) => c.name()));
    // A listed command has no options or arguments of its own: it was not built.
    expect(listed.commands.every((c) => c.options.length === 0 && c.registeredArguments.length === 0)).toBe(true);
  });

  it('`rsi help keywords search` builds help and keywords, and lists the rest', async () => {
    const io = fakeIo();
    const program = await loadProgram(fakeCtx(io, 'tsv'), ['help', 'keywords', 'search']);
    const built = program.commands.filter((c) => c.options.length > 0 || c.registeredArguments.length > 0 || c.commands.length > 0);
    expect(built.map((c) => c.name()).sort()).toEqual(['help', 'keywords']);
    await program.parseAsync(['help', 'keywords', 'search'], { from: 'user' });
    const whole = fakeIo();
    const all = await loadProgram(fakeCtx(whole, 'tsv'));
    await all.parseAsync(['help', 'keywords', 'search'], { from: 'user' });
    expect(io.out()).toBe(whole.out());
    expect(io.out()).toContain('Usage: rsi keywords search');
  });

  it('a field list after --json before the command is read as fields, not as the command word', async () => {
    for (const argv of [
      ['--json', 'name,id', 'projects', 'list'],
      ['--json=name', 'projects', 'list'],
    ]) {
      const program = await loadProgram(fakeCtx(fakeIo(), 'tsv'), argv);
      expect(program.commands.map((c) => c.name())).toEqual(['projects']);
    }
  });

  it('a listed command, were it ever run, says it was not loaded, instead of doing nothing', async () => {
    const program = await loadProgram(fakeCtx(fakeIo(), 'tsv'), ['--help']);
    for (const line of [
      ['status', 'P'],
      ['status', '--watch', '--help'],
    ]) {
      await expect(program.parseAsync(line, { from: 'user' })).rejects.toThrow(/internal: the command "status" was listed but not loaded/);
    }
  });

  it('keeps commander’s errors: a mistyped subcommand is named with a suggestion', async () => {
    const io = fakeIo();
    const program = await loadProgram(fakeCtx(io, 'tsv'), ['keywords', 'serch']);
    await expect(program.parseAsync(['keywords', 'serch'], { from: 'user' })).rejects.toMatchObject({ code: 'commander.unknownCommand' });
    expect(io.err()).toMatch(/^rsi: unknown command 'serch' \(did you mean search\?\)/);
  });

  it('a mistyped command gets every name listed, so the suggestion can name any command', async () => {
    const io = fakeIo();
    const program = await loadProgram(fakeCtx(io, 'tsv'), ['keywrds', 'search']);
    expect(program.commands.map((c) => c.name())).toEqual(root.commands.map((c) => c.name()));
    await expect(program.parseAsync(['keywrds', 'search'], { from: 'user' })).rejects.toMatchObject({ code: 'commander.unknownCommand' });
    expect(io.err()).toMatch(/did you mean keywords\?/);
  });
});
