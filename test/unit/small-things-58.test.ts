// The small things of issue 58 (item 5) that need no sandbox: the closest names a typo gets, a
// relation's did-you-mean, and --jq refusing only the surrogates jq itself cannot read.
import { describe, expect, it } from 'vitest';
import { relationQueries } from '../../src/commands/keywords/relations/relation-list.js';
import { compileJq, loneSurrogate } from '../../src/io/jq.js';
import { closestNames, editDistance } from '../../src/io/text.js';

describe('closest names', () => {
  it('counts a swap of neighbours as one edit, and offers only near names, closest first', () => {
    expect(editDistance('nmae', 'name')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(closestNames('nmae', ['id', 'name', 'type'])).toEqual(['name']);
    expect(closestNames('indicatons', ['indications', 'assets', 'pipeline_targets', 'sponsors'])).toEqual(['indications']);
    expect(closestNames('zzz', ['name', 'role'])).toEqual([]);
  });
});

describe('--relation', () => {
  it('a typo names the relation it likely meant, in the same line', () => {
    expect(() => relationQueries('indicatons', undefined)).toThrow(
      /^--relation must be one of indications, assets, pipeline_targets, sponsors, a comma-separated list of them, or all \(got "indicatons"\) \(did you mean indications\?\)$/,
    );
    expect(() => relationQueries('friends', undefined)).toThrow(/\(got "friends"\)$/);
    expect(relationQueries('pipeline-targets', undefined)).toEqual([{ relation: 'pipeline_targets' }]);
  });
});

describe('--jq and unpaired surrogates', () => {
  it('refuses only a high surrogate without its low half, which jq 1.8 cannot parse', () => {
    expect(loneSurrogate('{"s":"a\\ud800b"}')).toBe('\\ud800');
    expect(loneSurrogate('{"s":"a\\udc00b"}')).toBeUndefined();
    expect(loneSurrogate('{"s":"\\ud83d\\ude00"}')).toBeUndefined();
  });

  it('a lone low surrogate goes to jq, which reads it as U+FFFD', async () => {
    const program = await compileJq('.s', { env: {}, stderr: () => undefined });
    const out: string[] = [];
    await program.run('{"s":"a\\udc00b"}', false, async (o) => void out.push(...o));
    expect(out).toEqual(['"a\ufffdb"']);
    await expect(program.run('{"s":"a\\ud800b"}', false, async () => undefined)).rejects.toThrow(
      '--jq: the reply holds an unpaired UTF-16 high surrogate (\\ud800), which jq cannot read',
    );
  });
});
