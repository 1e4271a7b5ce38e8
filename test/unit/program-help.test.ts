// Help that routes: `rsi help a b` reaches the subcommand, subcommand help lists the inherited global
// flags and examples, and a flag of a sibling command is named.
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { loadProgram } from '../../src/program.js';
import { fakeCtx, fakeIo } from '../support/fakes.js';

async function rsi(...argv: string[]): Promise<{ out: string; err: string; code: string | undefined }> {
  const io = fakeIo();
  const program = await loadProgram(fakeCtx(io, 'tsv'));
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

  it('lists the global options once, in `rsi help environment`', async () => {
    const { out } = await rsi('help', 'environment');
    for (const o of (await loadProgram(fakeCtx(fakeIo(), 'tsv'))).options) if (o.long !== '--help') expect(out).toContain(o.long!);
    expect(out).toContain('NO_COLOR');
    expect(out).toContain('RSI_PROJECT');
    expect(out).toContain('Examples:');
  });
});

/** Every visible command path, the top level first. */
function screens(cmd: Command, prefix: string[] = []): string[][] {
  const out = [prefix];
  for (const sub of cmd.commands) if (!(sub as unknown as { _hidden: boolean })._hidden) out.push(...screens(sub, [...prefix, sub.name()]));
  return out;
}

const tree = await loadProgram(fakeCtx(fakeIo(), 'tsv'));

describe('help screens fit a terminal', () => {
  const paths = screens(tree).filter((p) => p.at(-1) !== 'help' || p.length === 1);
  for (const path of paths) {
    it(`rsi ${path.join(' ')} --help: at most 50 lines of 80 columns, examples, one pointer to the global options`, async () => {
      const { out } = await rsi(...path, '--help');
      const lines = out.trimEnd().split('\n');
      expect(lines.length).toBeLessThanOrEqual(50);
      expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(80);
      expect(out).toContain('\nExamples:\n');
      expect(out).toContain('Global options (--json, --jq, --fields, --profile, …): rsi help environment');
      // No global option is listed on a command's screen (the top level keeps -V and -h).
      expect(out).not.toMatch(/^ {2}--(?:profile|base-url|json|format|jq|fields|wide|time|debug) /m);
    });
  }

  it('spells each usage once: a group lists its commands with the usage of their own screens', async () => {
    const program = await loadProgram(fakeCtx(fakeIo(), 'tsv'));
    for (const group of program.commands.filter((c) => c.commands.length)) {
      const { out } = await rsi(group.name(), '--help');
      for (const sub of group.commands.filter((c) => c.name() !== 'help')) {
        const own = (await rsi(group.name(), sub.name(), '--help')).out;
        const usage = /^Usage: rsi \S+ (.*)$/m.exec(own)![1]!;
        expect(out, `${group.name()} ${sub.name()}`).toMatch(new RegExp(`^ {2}${escapeRegExp(usage)}(?: |$)`, 'm'));
      }
    }
    // `api` as gh writes it: the method is optional, the path is not.
    expect((await rsi('api', '--help')).out).toMatch(/^Usage: rsi api \[options\] \[method\] <path>$/m);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

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
