// rsi mcp serve, issue 53 items 3 and 4 in process (the real server, the SDK's client): a command
// the person is told to run keeps the profile and service the server was started with, through the
// commands' one rule (src/commands/shared/hints.ts); error texts are capped with a count of what was
// cut.
import { afterEach, describe, expect, it } from 'vitest';
import { carryCommand, carryGlobals, type InForce, inForceBeyondShell } from '../../src/commands/shared/hints.js';
import type { Context } from '../../src/context.js';
import { ALPHA, fakeApi, fakeRemote, ORIGIN, type Served, serve, text } from './mcp-tools.harness.js';

let s: Served | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const WHERE: InForce = { profile: 'work', profileFlag: true, baseUrl: 'https://rsi.test', baseUrlFlag: true };
const carry = { hint: (t: string) => carryGlobals(t, WHERE), command: (w: readonly string[]) => carryCommand(w, WHERE) };

describe('commands for the person keep the context', () => {
  it('a refused write prints the rsi command with the --profile and --base-url the server was started with', async () => {
    s = await serve({ allowWrite: true, carry });
    const r = await s.call('run_analyses', { project: 'KRAS inhibitors', top: { type: 'target', limit: 2 } });
    expect(text(r)).toContain(
      '<service-data tool="run_analyses" part="command">\nrsi analyses run --profile work --base-url https://rsi.test --top 2 --type target "KRAS inhibitors"\n</service-data>',
    );
    const brief = await serve({
      allowWrite: true,
      carry,
      remote: fakeRemote([], () => ({ content: [] })).deps,
      signIns: { now: { baseUrl: ORIGIN, mcp: {} } },
    });
    try {
      const b = await brief.call('create_project_from_brief', { brief: 'KRAS' });
      expect(text(b)).toContain('\nrsi projects create --profile work --base-url https://rsi.test --from-brief brief.md\n');
    } finally {
      await brief.close();
    }
  });

  it("a hint's `rsi …` (a sign-in for the MCP resource with a scope) keeps --resource and gains the server's flags", async () => {
    const remote = fakeRemote([{ name: 'get_scoreboard', inputSchema: { type: 'object', properties: {} } }], () => ({
      isError: true,
      content: [{ type: 'text', text: 'insufficient_scope: needs service:read' }],
    }));
    s = await serve({ carry, remote: remote.deps, signIns: { now: { baseUrl: ORIGIN, mcp: {} } } });
    const r = await s.call('project_scoreboard', { project: ALPHA });
    expect(text(r)).toContain('hint: run `rsi login --profile work --base-url https://rsi.test --resource mcp --add-scope service:read`');
  });

  it('in rsi mcp serve, a profile or base URL from the environment is carried too (the terminal does not have it); the setting is not', () => {
    const ctx = (profileSource: string, baseUrlSource: string | undefined) =>
      ({ globals: () => ({ profile: 'p', profileSource, baseUrl: 'https://b.test', baseUrlSource }) }) as unknown as Context;
    expect(inForceBeyondShell(ctx('env', 'env'))).toMatchObject({ profileFlag: true, baseUrlFlag: true });
    expect(inForceBeyondShell(ctx('flag', undefined))).toMatchObject({ profileFlag: true, baseUrlFlag: false });
    expect(inForceBeyondShell(ctx('settings', undefined))).toMatchObject({ profileFlag: false, baseUrlFlag: false });
    expect(carryCommand(['rsi', 'auth', 'status'], WHERE)).toEqual([
      'rsi',
      'auth',
      'status',
      '--profile',
      'work',
      '--base-url',
      'https://rsi.test',
    ]);
    // Never between a global flag and its value.
    expect(carryCommand(['rsi', '--profile', 'x', 'status'], WHERE)).toEqual([
      'rsi',
      '--base-url',
      'https://rsi.test',
      '--profile',
      'x',
      'status',
    ]);
    expect(carryGlobals('run `rsi --profile x status`', WHERE)).toBe('run `rsi --base-url https://rsi.test --profile x status`');
  });
});

describe('error texts are capped', () => {
  it('a megabyte of project name comes back cut, with a count of what was cut', async () => {
    s = await serve({ api: fakeApi() });
    const name = `K${'x'.repeat(1_048_576)}`;
    const r = await s.call('project_status', { project: name });
    expect(r.isError).toBe(true);
    const t = text(r);
    expect(t.length).toBeLessThan(6000);
    expect(t).toMatch(/no project named "Kx+… \[\d+ more characters cut\]/);
  });
});
