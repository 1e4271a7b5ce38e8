/**
 * rsi sandbox: flags → options (parseOptions, through build), and run. run starts the real
 * sandbox server (it is the command's whole job, in-process, on a free loopback port): it is driven
 * here with a signal already aborted, so it prints its banner, stops, and returns.
 */
import { describe, expect, it } from 'vitest';
import * as sandbox from '../../../src/commands/sandbox/sandbox.js';
import { UsageError } from '../../../src/errors.js';
import { parseFlags } from '../../support/commands.js';
import { fakeCtx, fakeIo } from '../../support/fakes.js';

const DEFAULTS: sandbox.SandboxCommandOptions = {
  port: 0,
  host: '127.0.0.1',
  timeScale: 1,
  tokenTtlSeconds: 3600,
  autoApprove: false,
  faults: [],
  quiet: false,
  latencyMs: 0,
  seed: undefined,
  adminSecret: undefined,
  tls: false,
  certFile: undefined,
  keyFile: undefined,
  publicHost: undefined,
};
const SECRET = 's'.repeat(16);

describe('sandbox: flags', () => {
  it.each([
    [[], DEFAULTS],
    [
      ['--port', '8765', '--host', 'localhost', '--time-scale', '0.5', '--token-ttl', '60', '--auto-approve', '--quiet', '--latency', '20'],
      { ...DEFAULTS, port: 8765, host: 'localhost', timeScale: 0.5, tokenTtlSeconds: 60, autoApprove: true, quiet: true, latencyMs: 20 },
    ],
    [['--fault', 'slow', '--fault', 'hang', '--admin-secret', SECRET], { ...DEFAULTS, faults: ['slow', 'hang'], adminSecret: SECRET }],
    [['--tls', '--public-host', 'RSI.test'], { ...DEFAULTS, tls: true, publicHost: 'rsi.test' }],
    [['--tls', '--tls-cert', 'c.pem', '--tls-key', 'k.pem'], { ...DEFAULTS, tls: true, certFile: 'c.pem', keyFile: 'k.pem' }],
  ])('%j → options', async (argv, expected) => {
    expect(await parseFlags(sandbox.build, argv)).toEqual(expected);
  });

  it('RSI_SANDBOX_ADMIN_SECRET is the default secret', async () => {
    const ctx = fakeCtx(fakeIo(false), { env: { RSI_SANDBOX_ADMIN_SECRET: SECRET } });
    expect((await parseFlags(sandbox.build, [], ctx)).adminSecret).toBe(SECRET);
  });

  it.each([
    [['--port', '65536'], /--port must be an integer from 0 to 65535/],
    [['--port', '1.5'], /--port must be an integer/],
    [['--host', 'a b'], /--host "a b" is not a valid address/],
    [['--time-scale', '0'], /--time-scale must be a number from 0.001 to 100000/],
    [['--token-ttl', '0'], /--token-ttl must be an integer from 1 to 86400/],
    [['--latency', '-1'], /--latency must be an integer from 0 to 60000/],
    [['--admin-secret', 'short'], /--admin-secret must be 16 to 200 printable ASCII characters/],
    [['--tls', '--tls-cert', 'c.pem'], /--tls-cert and --tls-key go together/],
    [['--tls-cert', 'c.pem', '--tls-key', 'k.pem'], /--tls-cert and --tls-key need --tls/],
    [['--public-host', 'a/b'], /--public-host "a\/b" is not a host name/],
  ])('%j → UsageError', async (argv, message) => {
    const error = await parseFlags(sandbox.build, argv).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });
});

describe('sandbox: run', () => {
  it('prints the base URL alone on stdout, the banner on stderr, and stops on the signal', async () => {
    const io = fakeIo(false);
    const stop = new AbortController();
    stop.abort();
    await sandbox.run({ ...DEFAULTS, quiet: true, adminSecret: SECRET, faults: ['slow'] }, fakeCtx(io, { signal: stop.signal }));
    expect(io.out()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\n$/);
    const url = io.out().trim();
    expect(io.err()).toContain(`sandbox: ready at ${url} (API ${url}/api/v1), faults: slow\n`);
    expect(io.err()).toContain('X-Sandbox-Secret with the secret you set');
    expect(io.err()).not.toContain(SECRET);
    expect(io.err()).toMatch(/sandbox: stopped\n$/);
  });

  it('--tls: the https base URL, then the path of a private CA file that is gone once it stops', async () => {
    const { existsSync, readFileSync, statSync } = await import('node:fs');
    const io = fakeIo(false);
    const stop = new AbortController();
    const ctx = fakeCtx(io, { signal: stop.signal });
    const running = sandbox.run({ ...DEFAULTS, quiet: true, tls: true, publicHost: 'rsi.test' }, ctx);
    while (io.out().split('\n').length < 3) await new Promise((r) => setTimeout(r, 10));
    const [url, caFile] = io.out().trim().split('\n');
    const seen = { pem: readFileSync(caFile!, 'utf8'), mode: statSync(caFile!).mode & 0o777 };
    stop.abort();
    await running;
    expect(url).toMatch(/^https:\/\/rsi\.test:\d+$/);
    expect(seen.pem).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    expect(seen.mode).toBe(0o600);
    expect(io.err()).toContain(`NODE_EXTRA_CA_CERTS=${caFile}`);
    expect(existsSync(caFile!)).toBe(false);
  });

  it('an unknown fault is a usage error before anything listens', async () => {
    const io = fakeIo(false);
    await expect(sandbox.run({ ...DEFAULTS, faults: ['meteor'] }, fakeCtx(io))).rejects.toThrow(/unknown fault "meteor"; known: /);
    expect(io.out()).toBe('');
  });
});
