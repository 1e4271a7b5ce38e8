// Scopes that add up: the missing-scope hint keeps --profile and asks for the union of the granted
// scopes and the missing one; `login --add-scope` keeps the others; `auth status` lists every profile.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startSandbox, type InProcessSandbox } from '../support/inproc.js';
import { FAKE_BROWSER } from '../support/browser.js';

let sandbox: InProcessSandbox;
const dir = mkdtempSync(join(tmpdir(), 'rsi-scopes-'));
const env = { RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file', BROWSER: FAKE_BROWSER };
const rsi = (...args: string[]) => runCli(args, { env });

beforeAll(async () => {
  sandbox = await startSandbox(['--auto-approve', '--quiet']);
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('scopes that add up', () => {
  it('hints the union under the same profile, and --add-scope keeps the others', async () => {
    const first = await rsi('login', '--profile', 'work', '--base-url', sandbox.url, '--scope', 'service:read,analyses:run');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('Scopes: service:read analyses:run');

    const denied = await rsi('--profile', 'work', 'projects', 'create', '--name', 'Scoped');
    expect(denied.code).toBe(4);
    expect(denied.stderr).toContain('missing scope projects:write');
    expect(denied.stderr).toContain(
      'hint: run `rsi login --profile work --scope service:read,analyses:run,projects:write` (the same as `rsi login --profile work --add-scope projects:write`',
    );

    const added = await rsi('login', '--profile', 'work', '--add-scope', 'projects:write');
    expect(added.code, added.stderr).toBe(0);
    const status = await rsi('--profile', 'work', 'auth', 'status', '--json');
    expect(JSON.parse(status.stdout).scopes.sort()).toEqual(['analyses:run', 'projects:write', 'service:read']);

    const created = await rsi('--profile', 'work', 'projects', 'create', '--name', 'Scoped', '--json');
    expect(created.code, created.stderr).toBe(0);
  });

  it('auth status lists every profile, the one in use first and marked', async () => {
    const other = await rsi('login', '--base-url', sandbox.url, '--scope', 'service:read');
    expect(other.code, other.stderr).toBe(0);
    const json = await rsi('auth', 'status', '--json');
    expect(json.code, json.stderr).toBe(0);
    const doc = JSON.parse(json.stdout) as { profile: string; profiles: { profile: string; signedIn: boolean; scopes: string[] }[] };
    expect(doc.profile).toBe('default');
    expect(doc.profiles.map((p) => p.profile)).toEqual(['default', 'work']);
    expect(doc.profiles[1]!.signedIn).toBe(true);
    expect(doc.profiles[1]!.scopes).toContain('projects:write');

    const table = await rsi('auth', 'status', '--format', 'table');
    expect(table.stdout).toMatch(/^\* default\s+http:\/\/127\.0\.0\.1:\d+\s+service:read /m);
    expect(table.stdout).toMatch(/^ {2}work\s+http:\/\/127\.0\.0\.1:\d+\s+service:read analyses:run projects:write/m);
  });
});
