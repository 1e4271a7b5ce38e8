// The Context carries what commands used to build behind per-command `deps`: one prompter per run,
// a progress line per call, and the MCP session opener; none of them loads anything before asked.
import { describe, expect, it } from 'vitest';
import { createContext, resolveGlobals } from '../../src/context.js';
import { fakeClock, fakeIo } from '../support/fakes.js';

const context = (tty = false) => {
  const io = fakeIo({ tty });
  const ctx = createContext({
    io,
    env: { RSI_CONFIG_DIR: '/nonexistent/rsi-context-test', RSI_CREDENTIAL_STORE: 'file' },
    signal: new AbortController().signal,
    version: 'test',
    clock: fakeClock(0),
    flags: () => ({ profile: 'nobody' }),
  });
  return { io, ctx };
};

describe('the Context', () => {
  it('gives one prompter per run', async () => {
    const { ctx } = context();
    expect(await ctx.prompter()).toBe(await ctx.prompter());
  });

  it('gives a progress line on its stderr (plain lines off a terminal)', async () => {
    const { io, ctx } = context();
    const progress = await ctx.progress({ suffix: () => ' · 1 s' });
    progress.update('scoring running');
    progress.stop();
    expect(io.err()).toBe('scoring running\n');
  });

  it('opens an MCP session only through the credentials: none here is a sign-in error, not a crash', async () => {
    const { ctx } = context();
    await expect(ctx.mcp()).rejects.toMatchObject({ exitCode: 3 });
    await ctx.close();
  });
});

describe('where the profile and base URL came from (resolved once, read by hints)', () => {
  const io = fakeIo();
  const source = (flags: Record<string, unknown>, env: Record<string, string>, settings = {}) => {
    const g = resolveGlobals(flags, env, io, settings);
    return [g.profile, g.profileSource, g.baseUrl, g.baseUrlSource];
  };

  it('the flag, then the environment, then the settings, then the default', () => {
    expect(source({ profile: 'a', baseUrl: 'http://f.test' }, { RSI_PROFILE: 'b', RSI_BASE_URL: 'http://e.test' })).toEqual([
      'a',
      'flag',
      'http://f.test',
      'flag',
    ]);
    expect(source({}, { RSI_PROFILE: 'b', RSI_BASE_URL: 'http://e.test' }, { profile: 'c' })).toEqual(['b', 'env', 'http://e.test', 'env']);
    expect(source({}, {}, { profile: 'c' })).toEqual(['c', 'settings', undefined, undefined]);
    expect(source({}, {})).toEqual(['default', 'default', undefined, undefined]);
  });

  it('an empty flag or variable says nothing (an empty flag still hides the variable, as before)', () => {
    expect(source({ profile: '' }, { RSI_PROFILE: 'b' })).toEqual(['default', 'default', undefined, undefined]);
    expect(source({}, { RSI_PROFILE: '', RSI_BASE_URL: '' }, { profile: 'c' })).toEqual(['c', 'settings', undefined, undefined]);
  });
});
