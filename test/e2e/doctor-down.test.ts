// `rsi doctor` against a service that was there at login and is now stopped: it must not claim that
// no registration is stored (one is: it just cannot be checked), and must not send the user to
// `rsi doctor` from inside doctor.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, startSandbox } from '../support/inproc.js';
import { FAKE_BROWSER } from '../support/browser.js';

describe('rsi doctor with the service down', () => {
  it('says the stored registration could not be checked, and never hints rsi doctor', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rsi-doc-down-'));
    const env = { RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file', BROWSER: FAKE_BROWSER };
    const sandbox = await startSandbox(['--auto-approve', '--quiet']);
    try {
      const login = await runCli(['login', '--base-url', sandbox.url], { env });
      expect(login.code, login.stderr).toBe(0);
    } finally {
      await sandbox.stop();
    }
    const r = await runCli(['doctor', '--json'], { env });
    expect(r.code).toBe(1);
    const checks = JSON.parse(r.stdout) as { name: string; ok: boolean; skipped?: boolean; detail: string; hint?: string }[];
    const registration = checks.find((c) => c.name === 'client registration')!;
    expect(registration.detail).toMatch(/stored; could not be checked/);
    expect(registration.detail).not.toMatch(/none stored/);
    expect(checks.find((c) => c.name === 'OAuth discovery')!.ok).toBe(false);
    expect(checks.find((c) => c.name === 'credentials file')!.detail).toContain('signed in');

    const text = await runCli(['doctor'], { env });
    expect(text.stdout + text.stderr).not.toContain('rsi doctor');
    expect(text.stdout).toContain('→ is the service running?');
  });
});
