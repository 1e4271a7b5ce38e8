// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in package.json:
// the newest stable release) with rsi as the client under test: the suite starts each scenario's
// MCP and authorization servers on loopback and runs test/outside/mcp-conformance-client.mjs,
// which runs the built rsi (dist/rsi-full.cjs's main(), in the wrapper's own process, so the file needs
// `npm run build` first): `rsi login --resource mcp`, `rsi mcp call`, and the login its hint
// names. Every client scenario the suite lists is run, all of them in one `conformance client
// --suite all` (side by side; the wrapper lifts rsi's 30 s HTTP deadline, which a sign-in among
// thirty on a busy 2-core machine can reach), each with its own generous timeout. Each must pass,
// except those mcp-conformance-scenarios.mjs lists as not applicable (the wrapper does nothing for
// them) or as a defect of the suite's own server, which rsi must refuse for exactly that reason;
// the wrapper refuses a scenario it does not know.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs module the wrapper shares, without type declarations.
import { MUST_PASS as MUST, NOT_APPLICABLE, SUITE_DEFECTS } from './mcp-conformance-scenarios.mjs';

const MUST_PASS = MUST as string[];
const notApplicable = NOT_APPLICABLE as Record<string, string>;
const suiteDefects = SUITE_DEFECTS as Record<string, string>;
const CLI = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url));
const WRAPPER = fileURLToPath(new URL('./mcp-conformance-client.mjs', import.meta.url));
const DOCS = fileURLToPath(new URL('../../docs/mcp.md', import.meta.url));
/** What the wrapper runs: the bundle `npm run build` writes. */
const BUNDLE = fileURLToPath(new URL('../../dist/rsi-full.cjs', import.meta.url));
/**
 * How long one scenario may take before the suite kills the client: a sign-in that takes 15 s on a
 * quiet 2-core machine, with room for one that is busy. Only a bound for a client that hangs.
 */
const SCENARIO_MS = 180_000;

interface Check {
  id: string;
  name: string;
  description: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  details?: Record<string, unknown>;
}
interface Outcome {
  checks: Check[];
  stderr: string;
}

let out: string;
let listed: string[] = [];
const results = new Map<string, Outcome>();

/** Runs the suite's CLI to the end; resolves with its output. */
function conformance(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('RSI_')));
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** One scenario's checks and the wrapper's stderr, from the folder the suite wrote. */
function readOutcome(name: string): Outcome | undefined {
  const parent = join(out, name.includes('/') ? name.slice(0, name.lastIndexOf('/')) : '');
  const leaf = name.slice(name.lastIndexOf('/') + 1);
  const dir = existsSync(parent) ? readdirSync(parent).find((d) => d.startsWith(`${leaf}-20`)) : undefined;
  if (!dir) return undefined;
  return {
    checks: JSON.parse(readFileSync(join(parent, dir, 'checks.json'), 'utf8')) as Check[],
    stderr: readFileSync(join(parent, dir, 'stderr.txt'), 'utf8'),
  };
}

beforeAll(
  async () => {
    // Without it every scenario would fail the same way, each with the wrapper's stack in its stderr.
    if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run \`npm run build\` first (the wrapper runs it)`);
    out = mkdtempSync(join(tmpdir(), 'rsi-conformance-out-'));
    // The suite's own list: `  - auth/metadata-default [2025-11-25]`.
    const list = await conformance(['list', '--client']);
    listed = [...list.output.matchAll(/^\s*- (\S+) \[/gm)].map((m) => m[1]!);
    if (listed.length === 0) throw new Error(`the conformance suite listed no client scenarios:\n${list.output.slice(-3000)}`);
    // Every scenario in one run of the suite (`--suite all`, which runs them side by side): one
    // start of the suite's CLI instead of one per scenario (each start is about 1.3 s of CPU, the
    // largest share of this file's cost when it ran a scenario at a time).
    const command = `"${process.execPath}" "${WRAPPER}"`;
    await conformance(['client', '--command', command, '--suite', 'all', '--timeout', String(SCENARIO_MS), '-o', out]);
    for (const name of listed) {
      const outcome = readOutcome(name);
      if (outcome) results.set(name, outcome);
    }
  },
  // Every scenario at its longest, all at once, and a margin.
  SCENARIO_MS + 120_000,
);

afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

/**
 * sse-retry's timing check fails a reconnection more than 200 ms after the server's `retry:` hint
 * (a warning) or 1 s (a failure): a busy machine running 48 scenarios at once is that late without
 * rsi doing anything wrong. Lateness is tolerated there; reconnecting *early* (not respecting the
 * hint) still fails, as do the reconnection and Last-Event-ID checks. test/journeys/mcp-client-streams.test.ts
 * holds the resumption itself without any timing.
 */
const latenessOnly = (c: Check): boolean => c.id === 'client-sse-retry-timing' && c.details?.tooEarly === false;
const problems = (o: Outcome | undefined): string[] =>
  o
    ? o.checks.filter((c) => (c.status === 'FAILURE' || c.status === 'WARNING') && !latenessOnly(c)).map((c) => `${c.id}: ${c.description}`)
    : ['not run'];

describe('the MCP conformance suite with rsi as the client', () => {
  it('the suite lists exactly the scenarios this test knows (a new one must be looked at), and each ran', () => {
    expect([...listed].sort()).toEqual([...MUST_PASS, ...Object.keys(notApplicable), ...Object.keys(suiteDefects)].sort());
    expect([...results.keys()].sort()).toEqual([...listed].sort());
  });

  it('the wrapper refuses a scenario it does not know, doing nothing', async () => {
    const child = spawn(process.execPath, [WRAPPER, 'http://127.0.0.1:9/mcp'], {
      env: { ...process.env, MCP_CONFORMANCE_SCENARIO: 'auth/some-new-scenario' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('unknown conformance scenario "auth/some-new-scenario"');
    expect(stderr).not.toContain('$ rsi');
  });

  it.each(MUST_PASS)('%s passes', (name) => {
    const outcome = results.get(name);
    expect(problems(outcome), outcome?.stderr).toEqual([]);
    // A scenario with no checks at all would "pass" by doing nothing.
    expect(outcome!.checks.some((c) => c.status === 'SUCCESS')).toBe(true);
  });

  it.each(Object.entries(suiteDefects))('%s: rsi refuses the metadata that names another issuer (RFC 8414 §3.3)', (name, why) => {
    const outcome = results.get(name)!;
    expect(outcome.stderr).toContain(why);
    // Refused before anything was registered or asked for.
    expect(outcome.checks.filter((c) => c.status === 'SUCCESS').map((c) => c.id)).not.toContain('client-registration');
  });

  it('step-up: the first sign-in asks for the challenge scope; the hint rsi gives then asks for the union, and that fixes it', () => {
    const outcome = results.get('auth/scope-step-up')!;
    expect(outcome.stderr).toContain('hint: run `rsi login --resource mcp --scope mcp:basic,mcp:write`');
    expect(outcome.stderr).toContain('$ rsi login --resource mcp --scope mcp:basic,mcp:write');
    const requested = outcome.checks
      .filter((c) => c.id === 'authorization-request')
      .map((c) => (c.details?.query as { scope?: string })?.scope);
    expect(requested).toEqual(['mcp:basic', 'mcp:basic mcp:write']);
  });

  it('a scope the server never accepts: one sign-in, then a hint that does not send anyone round again', () => {
    const outcome = results.get('auth/scope-retry-limit')!;
    expect(outcome.checks.filter((c) => c.id === 'scope-retry-auth-attempt')).toHaveLength(1);
    expect(outcome.stderr).toMatch(/^hint: your MCP sign-in already holds mcp:admin and is still refused/m);
    expect(outcome.stderr).not.toMatch(/^hint: .*rsi login/m);
  });

  it('a protected-resource document for another resource: refused before any authorization request', () => {
    const outcome = results.get('auth/resource-mismatch')!;
    expect(outcome.stderr).toContain('is for "https://evil.example.com/mcp", not http://localhost:');
    expect(outcome.checks.map((c) => c.id)).not.toContain('authorization-request');
  });

  it('the scenarios that do not apply are named in docs/mcp.md with the reason', () => {
    const docs = readFileSync(DOCS, 'utf8');
    for (const [name, why] of Object.entries({ ...notApplicable, ...suiteDefects })) {
      expect(docs, name).toContain(`\`${name}\``);
      if (name in notApplicable) expect(results.get(name)?.stderr, name).toContain(`not applicable to rsi: ${why}`);
    }
  });
});
