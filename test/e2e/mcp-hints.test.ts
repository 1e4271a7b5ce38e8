// Every hint rsi prints for the service's MCP server fixes what it names when followed (issue 32):
// each test runs the command, takes the `rsi …` command out of its `hint:` line, runs that as a
// person would (a real sign-in through the sandbox's auto-approving consent page), and runs the
// first command again. Before, an MCP sign-in lacking projects:write got "run `rsi login --scope
// …`", which re-signed the API only, and the same exit 4 came back.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliResult } from '../support/cli.js';
import { runCli, startSandbox, type InProcessSandbox } from '../support/inproc.js';
import { FAKE_BROWSER } from '../support/browser.js';

/**
 * A sign-in is several processes (rsi, the browser, the consent page): on a machine as busy as CI's
 * it can take far longer than runCli's default, so it is only a bound for a hang.
 */
const SLOW = 120_000;
let sb: InProcessSandbox;

beforeAll(async () => {
  sb = await startSandbox(['--auto-approve']);
});
afterAll(async () => {
  await sb?.stop();
});

function freshEnv(): Record<string, string> {
  return {
    RSI_BASE_URL: sb.url,
    RSI_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'rsi-mcp-hints-')),
    RSI_CREDENTIAL_STORE: 'file',
    BROWSER: FAKE_BROWSER,
  };
}

/** The command a `hint: run \`rsi …\`` line names, as arguments. */
function hinted(r: CliResult): string[] {
  const command = /^hint: run `rsi ([^`]+)`/m.exec(r.stderr)?.[1];
  expect(command, r.stderr).toBeDefined();
  return command!.split(/\s+/);
}

/** The MCP sign-in's granted scopes, as `rsi auth status --json` reports them. */
async function mcpScopes(env: Record<string, string>): Promise<string[]> {
  const status = await runCli(['auth', 'status', '--json', '--offline'], { env, timeoutMs: SLOW });
  return (JSON.parse(status.stdout) as { mcp: { scopes: string[] } }).mcp.scopes;
}

describe('hints for the MCP resource, followed', () => {
  it('not signed in to the MCP server: `rsi login --resource mcp` signs in, and the command works', async () => {
    const env = freshEnv();
    const first = await runCli(['mcp', 'tools', '--json'], { env, timeoutMs: SLOW });
    expect(first.code).toBe(3);
    const fix = hinted(first);
    expect(fix).toEqual(['login', '--resource', 'mcp']);
    const login = await runCli(fix, { env, timeoutMs: SLOW });
    expect(login.code, login.stderr).toBe(0);
    // Discovery from the MCP server's own challenge and metadata, which name the sandbox.
    expect(login.stderr).toContain(`the MCP server's metadata at ${sb.url}/.well-known/oauth-protected-resource/mcp names ${sb.url}`);
    const again = await runCli(['mcp', 'tools', '--json'], { env, timeoutMs: SLOW });
    expect(again.code, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as Array<{ name: string }>).map((t) => t.name)).toContain('create_project_from_brief');
  }, 300_000);

  it('`rsi projects create --from-brief` with an MCP sign-in lacking projects:write: the hint re-signs the MCP resource for the union', async () => {
    const env = freshEnv();
    // A full API sign-in beside a read-only MCP one: the API's scopes are not what is missing.
    expect((await runCli(['login'], { env, timeoutMs: SLOW })).code).toBe(0);
    const readOnly = await runCli(['login', '--resource', 'mcp', '--scope', 'service:read'], { env, timeoutMs: SLOW });
    expect(readOnly.code, readOnly.stderr).toBe(0);
    const create = ['projects', 'create', '--from-brief', '-', '--yes', '--name', 'Hinted brief', '--json'];
    const first = await runCli(create, { env, timeoutMs: SLOW, input: 'EGFR exon 20 in NSCLC' });
    expect(first.code, first.stderr).toBe(4);
    const fix = hinted(first);
    expect(fix).toEqual(['login', '--resource', 'mcp', '--scope', 'service:read,projects:write']);
    const login = await runCli(fix, { env, timeoutMs: SLOW });
    expect(login.code, login.stderr).toBe(0);
    expect(await mcpScopes(env)).toEqual(['service:read', 'projects:write']);
    const again = await runCli(create, { env, timeoutMs: SLOW, input: 'EGFR exon 20 in NSCLC' });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ created: true });
  }, 300_000);

  it('`rsi mcp call` of a tool that needs a scope the MCP sign-in lacks: the hint adds it and keeps the others', async () => {
    const env = freshEnv();
    const readOnly = await runCli(['login', '--resource', 'mcp', '--scope', 'service:read'], { env, timeoutMs: SLOW });
    expect(readOnly.code, readOnly.stderr).toBe(0);
    const call = ['mcp', 'call', 'create_project_from_brief', '--arg', 'brief=KRAS in NSCLC', '--arg', 'confirm=true'];
    const first = await runCli(call, { env, timeoutMs: SLOW });
    expect(first.code).toBe(4);
    expect(first.stderr).toContain('the tool create_project_from_brief needs the projects:write scope');
    const fix = hinted(first);
    expect(fix).toEqual(['login', '--resource', 'mcp', '--scope', 'service:read,projects:write']);
    expect((await runCli(fix, { env, timeoutMs: SLOW })).code).toBe(0);
    const again = await runCli(call, { env, timeoutMs: SLOW });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ created: true });
  }, 300_000);
});
