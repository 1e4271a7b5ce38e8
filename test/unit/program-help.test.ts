// Help that routes: `rsi help a b` reaches the subcommand, subcommand help lists the inherited global
// flags and examples, and a flag of a sibling command is named.
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { fakeCtx, fakeIo } from '../support/fakes.js';

async function rsi(...argv: string[]): Promise<{ out: string; err: string; code: string | undefined }> {
  const io = fakeIo();
  const program = buildProgram(fakeCtx(io, 'tsv'));
  let code: string | undefined;
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    code = (error as { code?: string }).code;
  }
  return { out: io.out(), err: io.err(), code };
}

describe('rsi help', () => {
  it('routes `help analyses run` to the subcommand, not the group', async () => {
    const { out } = await rsi('help', 'analyses', 'run');
    expect(out).toMatch(/^Usage: rsi analyses run \[options\] \[project\]/);
  });

  it('routes `help keywords search`', async () => {
    const { out } = await rsi('help', 'keywords', 'search');
    expect(out).toMatch(/^Usage: rsi keywords search/);
  });

  it('shows the top level with no words, and fails on an unknown command', async () => {
    expect((await rsi('help')).out).toMatch(/^Usage: rsi /);
    const bad = await rsi('help', 'analyses', 'nope');
    expect(bad.code).toBe('usage');
    expect(bad.out).toBe('');
  });

  it('lists the inherited global flags and examples in subcommand help', async () => {
    for (const path of [['analyses', 'run'], ['keywords', 'search'], ['status'], ['opportunities']]) {
      const { out } = await rsi('help', ...path);
      expect(out, path.join(' ')).toContain('Global Options:');
      expect(out, path.join(' ')).toMatch(/--json\s/);
      expect(out, path.join(' ')).toMatch(/--format <format>/);
      expect(out, path.join(' ')).toContain('Examples:');
    }
  });
});

describe('sibling flags', () => {
  it('status --wait suggests --watch', async () => {
    const { err, code } = await rsi('status', 'P', '--wait');
    expect(code).toBe('commander.unknownOption');
    expect(err).toBe("rsi: unknown option '--wait' (did you mean --watch?)\n");
  });

  it('analyses run --watch suggests --wait', async () => {
    const { err } = await rsi('analyses', 'run', 'P', '--watch');
    expect(err).toBe("rsi: unknown option '--watch' (did you mean --wait?)\n");
  });

  it("keeps commander's own suggestion on the error's one line", async () => {
    const { err } = await rsi('keywords', 'search', 'x', '--limt', '3');
    expect(err).toBe("rsi: unknown option '--limt' (did you mean --limit?)\n");
  });

  it('leaves other unknown flags to commander', async () => {
    const { err } = await rsi('status', 'P', '--bogus');
    expect(err).toBe("rsi: unknown option '--bogus'\n");
  });
});
