// The sandbox's timestamps are never in the future, even with --time-scale running its scan and
// analysis clock ahead of the wall clock: a project created now is "just now", not "in 17 min".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxClock } from '../../src/sandbox/clock.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { obtainTokens } from '../support/oauth.js';

describe('SandboxClock.iso', () => {
  it('maps scaled moments after start-up back onto the wall clock, never past it', () => {
    const clock = new SandboxClock(1000);
    const later = clock.now() + 3_600_000;
    expect(Date.parse(clock.iso(later))).toBeLessThanOrEqual(clock.real());
    expect(Date.parse(clock.iso())).toBeLessThanOrEqual(clock.real());
    // The seed's moments, before start-up, are shown as they are.
    const seeded = Date.now() - 86_400_000;
    expect(clock.iso(seeded)).toBe(new Date(seeded).toISOString());
  });
});

describe('a sandbox at --time-scale 500', () => {
  let sandbox: Sandbox;
  let token: string;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, timeScale: 500, autoApprove: true });
    token = (await obtainTokens(sandbox.url)).access_token;
  });
  afterAll(async () => sandbox?.close());

  it('projects and analysis runs carry no timestamp later than now', async () => {
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${sandbox.url}/api/v1${path}`, {
        ...init,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      }).then((r) => r.json() as Promise<Record<string, unknown>>);
    const created = await api('/projects', { method: 'POST', body: JSON.stringify({ name: 'Clock check' }) });
    const { projects } = (await api('/projects')) as { projects: Array<{ name: string; created_at: string }> };
    const now = Date.now();
    for (const p of projects) expect(Date.parse(p.created_at), p.name).toBeLessThanOrEqual(now);
    expect(projects.find((p) => p.name === 'Clock check')).toBeDefined();
    const kras = projects.find((p) => p.name === 'KRAS inhibitors') as unknown as { id: string };
    await api(`/projects/${kras.id}/analyses`, {
      method: 'POST',
      body: JSON.stringify({ top: { type: 'target', limit: 2, confirmed: true } }),
    });
    const status = JSON.stringify(await api(`/projects/${kras.id}/status`));
    for (const m of status.matchAll(/"updated_at":"([^"]+)"/g)) expect(Date.parse(m[1]!)).toBeLessThanOrEqual(Date.now());
    expect(created.id).toBeTypeOf('string');
  });
});
