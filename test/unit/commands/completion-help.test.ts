/**
 * completion and help: flags → options and run. Both read the command tree, so run goes through
 * buildProgram with a fake context; what the completion scripts do in a shell is
 * test/unit/completion.test.ts.
 */
import { describe, expect, it } from 'vitest';
import * as completion from '../../../src/commands/completion/completion.js';
import { UsageError } from '../../../src/errors.js';
import { loadProgram } from '../../../src/program.js';
import { parseFlags } from '../../support/commands.js';
import { fakeCtx, fakeIo } from '../../support/fakes.js';

async function rsi(...argv: string[]) {
  const io = fakeIo(false);
  const program = await loadProgram(fakeCtx(io, 'tsv'));
  const error = await program.parseAsync(argv, { from: 'user' }).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  return { out: io.out(), err: io.err(), error };
}

describe('completion: flags', () => {
  it.each(['bash', 'zsh', 'fish', 'powershell'])('%s → options with the root of the tree', async (shell) => {
    const o = await parseFlags(completion.build, [shell]);
    expect(o.shell).toBe(shell);
    // The script describes the whole tree: the root is handed over, not the completion command.
    expect(o.program.name()).toBe('rsi');
    expect(o.program.parent).toBeNull();
  });
  it.each([
    [['tcsh'], /shell must be one of bash, zsh, fish, powershell \(got "tcsh"\)/, UsageError],
    [[], /missing required argument 'shell'/, Error],
  ])('%j → usage error', async (argv, message, type) => {
    const error = await parseFlags(completion.build, argv).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(type);
    expect((error as Error).message).toMatch(message);
  });
});

describe('completion: run', () => {
  it('bash: a script naming every command on stdout, nothing on stderr', async () => {
    const { out, err, error } = await rsi('completion', 'bash');
    expect(error).toBeUndefined();
    expect(out).toContain('_rsi_completion');
    for (const name of ['keywords', 'projects', 'analyses', 'scoreboard', 'mcp']) expect(out).toContain(name);
    expect(err).toBe('');
  });
  it('fish: complete -c rsi lines; the global --format values are offered', async () => {
    const { out } = await rsi('completion', 'fish');
    expect(out).toMatch(/^complete -c rsi /m);
    expect(out).toContain('table');
    expect(out).toContain('ndjson');
  });
  it('a shell it does not know: UsageError, nothing printed', async () => {
    const { out, error } = await rsi('completion', 'tcsh');
    expect(error).toBeInstanceOf(UsageError);
    expect(out).toBe('');
  });
});

describe('help', () => {
  it.each([
    [[], /^Usage: rsi \[options\] \[command\]/],
    [['keywords'], /^Usage: rsi keywords \[options\] \[command\]/],
    [['keywords', 'relations'], /^Usage: rsi keywords relations \[options\] <keyword>/],
    [['mcp', 'call'], /^Usage: rsi mcp call \[options\] <tool>/],
  ])('help %j prints that command’s help on stdout', async (words, usage) => {
    const { out, err, error } = await rsi('help', ...words);
    expect(error).toBeUndefined();
    expect(out).toMatch(usage);
    expect(err).toBe('');
  });
  it('an unknown command: UsageError with the words and a hint', async () => {
    const { out, error } = await rsi('help', 'keywords', 'delete');
    expect(error).toBeInstanceOf(UsageError);
    expect(error!.message).toBe('unknown command "keywords delete"');
    expect((error as UsageError).hint).toBe('run `rsi help` for the list of commands');
    expect(out).toBe('');
  });
});
