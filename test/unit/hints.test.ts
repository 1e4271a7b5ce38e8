// Hints that work when followed: a hint's `rsi …` carries the --profile and --base-url the run was
// given; an interrupted or timed-out watch names the project and the exact command to resume.
import { describe, expect, it } from 'vitest';
import { makeOutput } from '../../src/io/formats.js';
import { carryGlobals, withGlobals } from '../../src/commands/shared/hints.js';
import { watchWithOutput } from '../../src/commands/shared/watch.js';
import type { ProjectStatus } from '../../src/client/schemas.js';
import { InterruptedError, NotSignedInError, WatchTimeoutError } from '../../src/errors.js';
import { createProgress } from '../../src/io/progress.js';
import { fakeClock, fakeCtx, fakeIo } from '../support/fakes.js';

const flags = { profile: 'ttl', profileFlag: true, baseUrl: 'http://127.0.0.1:8765', baseUrlFlag: true };

describe('carryGlobals', () => {
  it.each([
    ['run `rsi login`', 'run `rsi login --profile ttl --base-url http://127.0.0.1:8765`'],
    ['run `rsi login --resource mcp`', 'run `rsi login --profile ttl --base-url http://127.0.0.1:8765 --resource mcp`'],
    ['run `rsi auth status`', 'run `rsi auth status --profile ttl --base-url http://127.0.0.1:8765`'],
    ['run `rsi --profile ttl login --base-url <url>`', 'run `rsi --profile ttl login --base-url http://127.0.0.1:8765`'],
    ['run `rsi config unset format`', 'run `rsi config unset format`'],
    [
      'watch again with `rsi status "My P" --watch`',
      'watch again with `rsi status --profile ttl --base-url http://127.0.0.1:8765 "My P" --watch`',
    ],
  ])('%s', (hint, expected) => {
    expect(carryGlobals(hint, flags)).toBe(expected);
  });

  it('adds nothing the environment or the settings already say', () => {
    const fromEnv = { profile: 'ttl', profileFlag: false, baseUrl: 'http://127.0.0.1:8765', baseUrlFlag: false };
    expect(carryGlobals('run `rsi login`', fromEnv)).toBe('run `rsi login`');
  });

  it('tells a flag from the environment through the context', () => {
    const io = fakeIo();
    // The Context says where each came from; the hint does not work it out again.
    const ctx = fakeCtx(io, {
      globals: { profile: 'ttl', profileSource: 'flag', baseUrl: 'http://b.test', baseUrlSource: 'env' },
      env: { RSI_BASE_URL: 'http://b.test' },
    });
    const error = withGlobals(new NotSignedInError('the authorization server refused the refresh: invalid_grant'), ctx) as NotSignedInError;
    expect(error).toBeInstanceOf(NotSignedInError);
    expect(error.hint).toBe('run `rsi login --profile ttl`');
  });
});

function status(next: ProjectStatus['next']): ProjectStatus {
  return { signals_ready: true, scoring: 'running', summary: 's', next, analyses: [{ status: 'running' }] };
}

describe('a watch that ends early', () => {
  it('names the project in the --timeout hint, never <project>', async () => {
    const io = fakeIo(false);
    const error = await watchWithOutput(
      async () => status('wait'),
      { intervalMs: 1000, timeoutMs: 3000 },
      { out: makeOutput(io, { format: 'tsv' }), clock: fakeClock(), signal: new AbortController().signal, progress: createProgress(io) },
      { ndjson: false, projectName: 'My first project' },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WatchTimeoutError);
    expect((error as WatchTimeoutError).hint).toBe(
      'watch again with `rsi status "My first project" --watch`, or give a longer --timeout (0 = no limit)',
    );
  });

  it('on Ctrl-C says the service goes on and how to resume (with --json, the same output)', async () => {
    const io = fakeIo(false);
    const abort = new AbortController();
    let polls = 0;
    const error = await watchWithOutput(
      async () => {
        if (++polls === 2) abort.abort(new InterruptedError());
        return status('wait');
      },
      { intervalMs: 1000, timeoutMs: 0 },
      { out: makeOutput(io, { format: 'tsv' }), clock: fakeClock(), signal: abort.signal, progress: createProgress(io) },
      { ndjson: true, projectName: "Bob's plan" },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InterruptedError);
    expect((error as InterruptedError).message).toBe('interrupted');
    expect((error as InterruptedError).hint).toBe(
      'only the watching stopped: the service goes on with the work; to follow it again, run `rsi status "Bob\'s plan" --watch --json`',
    );
  });
});
