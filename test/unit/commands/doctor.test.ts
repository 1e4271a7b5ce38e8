/**
 * doctor: flags, and run with fake credentials and a temporary config folder. Its checks probe real
 * things by design (the config folder's permissions, a loopback port it binds and frees, the
 * service over the process's network path): here the service is absent or refuses on loopback
 * port 1, so nothing leaves the machine; a reachable service is test/e2e/doctor-down.test.ts and
 * test/e2e/cli-basics.test.ts against the sandbox.
 */
import { PACKAGE_NAME } from '../../../src/release.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as doctor from '../../../src/commands/doctor/doctor.js';
import { Network } from '../../../src/http/network.js';
import { fakeCredentials, parseFlags } from '../../support/commands.js';
import { fakeCtx, fakeIo } from '../../support/fakes.js';
import { MemoryStore } from '../../support/memory-store.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url)).replace(/\/$/, '');

/** An in-memory store that reports itself as the keychain, as the default store would. */
const keychain = () => Object.assign(new MemoryStore(), { kind: 'keychain' as const });

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rsi-doctor-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('doctor: flags', () => {
  it('takes nothing', async () => {
    expect(await parseFlags(doctor.build, [])).toEqual({});
    await expect(parseFlags(doctor.build, ['--fix'])).rejects.toThrow(/unknown option '--fix'/);
  });
});

describe('doctor: run', () => {
  it("starts with what a bug report needs: rsi's version and installation, Node's version, the platform", async () => {
    const io = fakeIo(false);
    const ctx = fakeCtx(io, {
      format: 'json',
      env: { RSI_CONFIG_DIR: dir },
      credentials: fakeCredentials({ baseUrl: undefined, configDir: dir, store: keychain() }),
    });
    await doctor.run({}, ctx).catch(() => undefined);
    const [rsi, node, platform] = JSON.parse(io.out()) as doctor.Check[];
    // Run from the sources here; the installed package and the single executable say so in
    // test/journeys/install.test.ts and test/journeys/exe.test.ts.
    expect(rsi).toEqual({
      name: 'rsi',
      ok: true,
      detail: `${PACKAGE_NAME} ${ctx.version}, run from a checkout of the sources (no update check), ${ROOT}`,
    });
    expect(node).toEqual({ name: 'Node.js', ok: true, detail: `${process.version} (${process.execPath})` });
    expect(platform).toMatchObject({ name: 'platform', ok: true });
    expect(platform!.detail).toMatch(new RegExp(`^${process.platform} ${process.arch}, \\S+ \\S+`));
  });

  it('json: the checks as a list; no base URL fails the run (exit 1) and names it', async () => {
    const io = fakeIo(false);
    const ctx = fakeCtx(io, {
      format: 'json',
      env: { RSI_CONFIG_DIR: dir },
      credentials: fakeCredentials({ baseUrl: undefined, configDir: dir, store: keychain() }),
    });
    const error = await doctor.run({}, ctx).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/^1 of \d+ checks failed: base URL$/);
    const checks = JSON.parse(io.out()) as doctor.Check[];
    expect(checks.find((c) => c.name === 'base URL')).toEqual({
      name: 'base URL',
      ok: false,
      detail: 'none configured',
      hint: 'run `rsi login --base-url <url>` or set RSI_BASE_URL',
    });
    expect(checks.find((c) => c.name === 'keychain')).toMatchObject({ ok: true, detail: 'reachable and unlocked; not signed in' });
    expect(checks.find((c) => c.name === 'loopback port')).toMatchObject({ ok: true });
    expect(io.err()).toBe('');
  });

  it('human: a checklist with ✓, ✗ and the fix under each failure; an unreachable service is named', async () => {
    const io = fakeIo(false);
    const network = new Network({ env: {}, timeoutMs: 120_000 });
    const credentials = fakeCredentials({ baseUrl: 'http://127.0.0.1:1', configDir: dir, store: keychain() });
    try {
      const ctx = fakeCtx(io, { format: 'tsv', env: { RSI_CONFIG_DIR: dir }, credentials, network });
      const error = await doctor.run({}, ctx).catch((e: unknown) => e);
      expect((error as Error).message).toMatch(/checks failed: service reachable, OAuth discovery/);
    } finally {
      await network.close();
    }
    expect(io.out()).toMatch(/^✓ base URL: http:\/\/127\.0\.0\.1:1$/m);
    expect(io.out()).toMatch(/^- proxy: none/m);
    expect(io.out()).toMatch(/^✗ service reachable: not reached directly: .+\n {2}→ /m);
    expect(io.out()).toMatch(/^✓ keychain: reachable and unlocked; not signed in$/m);
  });
});
