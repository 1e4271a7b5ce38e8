import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { int, names, on, type OptionSpecs, parseOptions, withOptions } from '../../src/commands/shared/options.js';

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
