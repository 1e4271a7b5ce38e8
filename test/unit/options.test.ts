import { Command } from 'commander';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { LIMITS } from '../../src/client/limits.js';
import { UsageError } from '../../src/errors.js';
import {
  int,
  list,
  matching,
  names,
  negatable,
  number,
  on,
  oneOf,
  type OptionSpecs,
  type Parser,
  parseOptions,
  seconds,
  text,
  withOptions,
} from '../../src/commands/shared/options.js';

const OPTIONS = {
  include: { flags: '--include <sections>', description: 'sections', parse: names('section names such as indications,sponsors') },
  limit: { flags: '--limit <n>', description: 'at most', parse: int(1, 5) },
  web: { flags: '--web', description: 'open', parse: on() },
} satisfies OptionSpecs;

/** The typed options of `words`, read as a command built from OPTIONS reads them. */
function read(...words: string[]) {
  const cmd = withOptions(new Command('x').exitOverride(), OPTIONS);
  cmd.parse(words, { from: 'user' });
  return parseOptions(OPTIONS, cmd.opts());
}

describe('options as data', () => {
  it('adds the options in the declaration order, their help as declared', () => {
    const cmd = withOptions(new Command('x'), OPTIONS);
    expect(cmd.options.map((o) => [o.flags, o.description])).toEqual([
      ['--include <sections>', 'sections'],
      ['--limit <n>', 'at most'],
      ['--web', 'open'],
    ]);
  });

  it("reads each typed option; one not given is its parser's default", () => {
    expect(read()).toEqual({ include: [], limit: undefined, web: false });
    expect(read('--limit', '3', '--web')).toEqual({ include: [], limit: 3, web: true });
  });

  it('names: comma-separated or repeated, in lower case with _ for -, once each, in the order given', () => {
    expect(read('--include', 'Indications, pipeline-targets', '--include', 'indications,sponsors').include).toEqual([
      'indications',
      'pipeline_targets',
      'sponsors',
    ]);
  });

  it('a bad value is a UsageError naming the flag and what was typed', () => {
    expect(() => read('--include', ',')).toThrow(
      new UsageError('--include takes comma-separated section names such as indications,sponsors (got ",")'),
    );
    expect(() => read('--include', 'a', '--include', '1x')).toThrow(/--include takes .* \(got "a,1x"\)/);
    expect(() => read('--limit', '9')).toThrow(new UsageError('--limit must be an integer from 1 to 5 (got "9")'));
  });
});

/** A command built from `specs`, its typed options for `words` (the first error thrown as is). */
function readWith<S extends OptionSpecs>(specs: S, ...words: string[]) {
  const cmd = withOptions(new Command('x').exitOverride(), specs);
  cmd.parse(words, { from: 'user' });
  return parseOptions(specs, cmd.opts());
}

describe('options as data: what commander knows besides', () => {
  const SERVER = {
    port: { flags: '--port <n>', description: 'port', parse: number(0, 65535, { integer: true }), default: '0' },
    fault: { flags: '--fault <name>', description: 'faults', parse: list(), default: [] },
    browser: { flags: '--no-browser', description: 'no browser', parse: negatable() },
    exitStatus: { flags: '--exit-status', description: 'a habit', parse: on(), hidden: true },
  } satisfies OptionSpecs;

  it('a default is shown in help and read when the flag is not given; its option is never undefined', () => {
    const help = withOptions(new Command('x'), SERVER).helpInformation();
    expect(help).toMatch(/--port <n>\s+port \(default: "0"\)/);
    expect(help).toMatch(/--fault <name>\s+faults \(default: \[\]\)/);
    const options = readWith(SERVER);
    expect(options).toEqual({ port: 0, fault: [], browser: true, exitStatus: false });
    expectTypeOf(options.port).toEqualTypeOf<number>();
    // Read from a record without it (a caller other than commander), the default still applies.
    expect(parseOptions(SERVER, {}).port).toBe(0);
  });

  it('a hidden option works and is not in help', () => {
    expect(withOptions(new Command('x'), SERVER).helpInformation()).not.toContain('--exit-status');
    expect(readWith(SERVER, '--exit-status').exitStatus).toBe(true);
  });

  it('negatable: on unless --no-x is given, keyed as commander names it', () => {
    expect(readWith(SERVER, '--no-browser').browser).toBe(false);
    expect(() => withOptions(new Command('x'), { noBrowser: SERVER.browser })).toThrow(/must be keyed browser, not noBrowser/);
  });

  it('list: every occurrence, split and read item by item when asked; an item made undefined is dropped', () => {
    expect(readWith(SERVER, '--fault', 'slow', '--fault', 'hang').fault).toEqual(['slow', 'hang']);
    const SCOPES = {
      scope: {
        flags: '--scope <s>',
        description: 'scopes',
        parse: list({ split: /[\s,]+/, item: (flag, s) => (s === '' ? undefined : s === 'bad' ? fail(flag) : s.toUpperCase()) }),
      },
    } satisfies OptionSpecs;
    expect(readWith(SCOPES, '--scope', 'a b,', '--scope', 'c').scope).toEqual(['A', 'B', 'C']);
    expect(() => readWith(SCOPES, '--scope', 'a,bad')).toThrow(new UsageError('--scope is bad'));
  });
});

function fail(flag: string): never {
  throw new UsageError(`${flag} is bad`);
}

describe('options as data: parsers', () => {
  const p = (parser: Parser<unknown>, raw: unknown) => parser.parse('--x', raw);

  it('number: as JavaScript reads one, within the range, whole when asked, named as asked', () => {
    expect(p(number(0.001, 100), ' 1.5 ')).toBe(1.5);
    expect(p(number(0, 10), undefined)).toBeUndefined();
    expect(p(number(LIMITS.topLimit, undefined, { integer: true, what: 'a whole number' }), '7')).toBe(7);
    expect(() => p(number(1, 100, { integer: true, what: 'a whole number' }), '2.5')).toThrow(
      new UsageError('--x must be a whole number from 1 to 100 (got "2.5")'),
    );
    expect(() => p(number(0, 65535, { integer: true }), '65536')).toThrow(
      new UsageError('--x must be an integer from 0 to 65535 (got "65536")'),
    );
    for (const bad of ['', ' ', 'abc', 'Infinity']) expect(() => p(number(0, 10), bad)).toThrow(/--x must be a number from 0 to 10/);
    expect(() => p(number(1), '0')).toThrow(new UsageError('--x must be a number of at least 1 (got "0")'));
  });

  it('seconds: a number of seconds, a fraction allowed', () => {
    expect(p(seconds(0.1, 3600), '0.5')).toBe(0.5);
    expect(() => p(seconds(0.1, 3600), '0')).toThrow(new UsageError('--x must be a number of seconds from 0.1 to 3600 (got "0")'));
  });

  it('text: not empty, trimmed, at most max characters', () => {
    expect(p(text(3), ' abc ')).toBe('abc');
    expect(() => p(text(3), 'abcd')).toThrow(new UsageError('--x must be at most 3 characters'));
    expect(() => p(text(), '  ')).toThrow(new UsageError('--x must not be empty'));
  });

  it('matching: the value (trimmed when asked) against the pattern, the error as the declaration words it', () => {
    const host = matching(/^[\w.-]+$/, (v) => `--host "${v}" is not a valid address`);
    expect(p(host, 'localhost')).toBe('localhost');
    expect(() => p(host, ' localhost')).toThrow(new UsageError('--host " localhost" is not a valid address'));
    expect(
      p(
        matching(/^\S+$/, () => 'no', { trim: true }),
        ' id ',
      ),
    ).toBe('id');
  });
});

describe('options as data: rules between options', () => {
  const RULES = {
    top: {
      flags: '--top <n>',
      description: 'top',
      parse: int(1, 5),
      rules: [
        { conflicts: 'select', message: 'choose one way' },
        { needs: 'type', message: '--top needs --type' },
      ],
    },
    type: { flags: '--type <t>', description: 'type', parse: oneOf(['a', 'b'] as const), rules: [{ needs: 'top' }] },
    select: { flags: '-s, --select <s>', description: 'select', parse: list() },
    wait: { flags: '--wait', description: 'wait', parse: on() },
    web: { flags: '--web', description: 'web', parse: on(), rules: [{ conflicts: 'wait' }] },
  } satisfies OptionSpecs;

  it('needs and conflicts: the usual sentence, or the declared one; checked in declaration order', () => {
    expect(readWith(RULES, '--top', '3', '--type', 'a')).toMatchObject({ top: 3, type: 'a', select: [] });
    expect(() => readWith(RULES, '--type', 'a')).toThrow(new UsageError('--type only applies with --top'));
    expect(() => readWith(RULES, '--web', '--wait')).toThrow(new UsageError('--web cannot be used with --wait'));
    expect(() => readWith(RULES, '--top', '3')).toThrow(new UsageError('--top needs --type'));
    expect(() => readWith(RULES, '--top', '3', '-s', 'x')).toThrow(new UsageError('choose one way'));
  });

  it('a wrong combination is said before a wrong value', () => {
    expect(() => readWith(RULES, '--top', '99', '-s', 'x')).toThrow(new UsageError('choose one way'));
    expect(() => readWith(RULES, '--top', '99', '--type', 'a')).toThrow(/--top must be an integer from 1 to 5/);
  });

  it('a rule naming no option fails when the command is built', () => {
    const bad = { web: { flags: '--web', description: 'web', parse: on(), rules: [{ needs: 'nothing' }] } } satisfies OptionSpecs;
    expect(() => withOptions(new Command('x'), bad)).toThrow(/a rule of --web names no option: nothing/);
  });
});
