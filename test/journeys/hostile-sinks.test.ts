// Hostile sinks (issue 20, item 9): beyond the tables of hostile-text.test.ts, every other place a
// hostile service's bytes reach, against a real `rsi sandbox --fault hostile` and real `rsi`
// processes on pipes: `rsi api` text and broken-JSON bodies (exact to a pipe), lossless numbers and
// `__proto__` in --json and --debug, invisible characters in --json (escaped, same value), the
// URL opener (--open-setup with file:, javascript:, … never reaches $BROWSER), unchecked ids
// (never suggested as a command), the forged confirmation, and `rsi mcp call` text. The terminal
// side of the same sinks runs in tmux: test/system/tmux-hostile.test.ts.
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTILE_MCP_TEXT, HOSTILE_ROUTES } from '../../src/sandbox/faults.js';
import { runCli, type CliResult } from '../support/cli.js';
import { obtainTokens } from '../support/oauth.js';
import { HOSTILE_PLAIN_PROJECT, rawControls } from '../support/sandbox.js';
import { startSandbox, type InProcessSandbox } from '../support/inproc.js';

let sandbox: InProcessSandbox;
let work: string;
let token: string;
let mcpToken: string;
/** The folder rsi runs in: a command that ran (`touch pwned`) would leave a file here. */
let cwd: string;
/** $BROWSER: records every URL it is given. */
let opened: string;

function rsi(args: readonly string[], extra: Record<string, string> = {}): Promise<CliResult> {
  return runCli(args, {
    cwd,
    env: {
      RSI_TOKEN: token,
      RSI_MCP_TOKEN: mcpToken,
      RSI_BASE_URL: sandbox.url,
      RSI_CONFIG_DIR: join(work, 'config'),
      BROWSER: join(work, 'browser'),
      ...extra,
    },
  });
}

const openedUrls = (): string[] => (existsSync(opened) ? readFileSync(opened, 'utf8').trimEnd().split('\n') : []);

beforeAll(async () => {
  sandbox = await startSandbox(['--auto-approve', '--fault', 'hostile']);
  token = (await obtainTokens(sandbox.url)).access_token;
  mcpToken = (await obtainTokens(sandbox.url, { resource: `${sandbox.url}/mcp` })).access_token;
  work = mkdtempSync(join(tmpdir(), 'rsi-hostile-sinks-'));
  cwd = mkdtempSync(join(work, 'cwd-'));
  opened = join(work, 'opened.log');
  writeFileSync(join(work, 'browser'), `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`);
  chmodSync(join(work, 'browser'), 0o755);
});

afterAll(async () => {
  await sandbox?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('rsi api', () => {
  it('a text/plain body goes to a pipe exactly as sent', async () => {
    const r = await rsi(['api', 'GET', '/hostile/text']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(HOSTILE_ROUTES['/api/v1/hostile/text']!.body);
  });

  it('JSON that does not parse goes to a pipe exactly as sent', async () => {
    const r = await rsi(['api', 'GET', '/hostile/broken-json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${HOSTILE_ROUTES['/api/v1/hostile/broken-json']!.body}\n`);
  });

  it('prints integers beyond 2^53 as sent, keeps __proto__ and constructor, escapes C1/bidi/zero-width', async () => {
    const r = await rsi(['api', 'GET', '/hostile/numbers']);
    expect(r.code, r.stderr).toBe(0);
    // The service sent U+0085, U+202E and U+200B raw inside the string: they come out escaped.
    expect(r.stdout).toBe(
      '{"big":12345678901234567891,"neg":-98765432109876543210,"safe":9007199254740991,"__proto__":{"polluted":true},"constructor":{"name":"x"},"s":"\\u0085\\u202e\\u200b"}\n',
    );
    expect(rawControls(r.stdout)).toEqual([]);
  });

  it('--debug keeps the __proto__ member of a reply as data', async () => {
    const r = await rsi(['api', 'GET', '/hostile/numbers', '--debug']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('"__proto__":{"polluted":true},"constructor":{"name":"x"}');
    expect(r.stderr).toContain('"big":12345678901234567891');
  });
});

describe('--json', () => {
  it('escapes C1, bidi and invisible characters as \\u, the parsed value unchanged', async () => {
    const r = await rsi(['projects', 'list', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(rawControls(r.stdout)).toEqual([]);
    expect(r.stdout).toMatch(/\\u0085.*\\u200b.*\\udb40\\udc67/);
    const names = (JSON.parse(r.stdout) as { projects: Array<{ name: string }> }).projects.map((p) => p.name);
    expect(names.some((n) => n.includes('\u0085') && n.includes('\u202e') && n.includes('\u200b') && n.includes('\u{e0067}'))).toBe(true);
  });
});

describe('the URL opener: --open-setup opens only https/loopback URLs on the base URL', () => {
  it.each([
    'file:///etc/passwd',
    'javascript:alert(1)',
    'vscode://file/etc/passwd',
    'ms-msdt:/id PCWDiagnostic',
    'data:text/html,<script>alert(1)</script>',
    'https://evil.example/phish',
    '--help',
  ])('refuses %s: printed with a warning, never given to $BROWSER', async (url) => {
    const before = openedUrls().length;
    const r = await rsi(['projects', 'create', '--name', `url:${url}`, '--open-setup', '--format', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^warning: not opening the setup page the service sent \(.+\); open it yourself only if you trust it$/m);
    expect(openedUrls()).toHaveLength(before);
    expect(rawControls(r.stdout + r.stderr)).toEqual([]);
  });

  it('a setup URL on the base URL’s origin is opened', async () => {
    const r = await rsi(['projects', 'create', '--name', 'Plain setup', '--open-setup', '--format', 'table']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('warning: not opening');
    expect(openedUrls().at(-1)).toMatch(new RegExp(`^${sandbox.url}/projects/[0-9a-f-]{36}/overview\\?setup=1$`));
  });
});

describe('ids from the service', () => {
  it('a created project whose id is shell code is refused before any command is suggested; nothing runs', async () => {
    const r = await rsi(['projects', 'create', '--name', 'id:$(touch pwned)', '--format', 'table']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^rsi: .*not a UUID/m);
    expect(r.stderr).not.toContain('Next:');
    expect(readdirSync(cwd)).toEqual([]);
  });
});

describe('the analyses confirmation', () => {
  it('a forged assumption stays quoted: no line of it reads as rsi’s own', async () => {
    const r = await rsi(['analyses', 'run', HOSTILE_PLAIN_PROJECT, '--top', '2', '--type', 'target']);
    expect(r.code, r.stderr).toBe(7);
    const lines = r.stderr.split('\n');
    expect(lines.some((l) => l.startsWith('  > ') && l.includes('Nothing was run. ? Run 1 analysis'))).toBe(true);
    expect(lines.filter((l) => /^(Nothing was run\.|\? Run|✓ Started)/.test(l))).toEqual([]);
    expect(rawControls(r.stderr)).toEqual([]);
  });
});

describe('rsi mcp call', () => {
  it('a text result goes to a pipe exactly as sent', async () => {
    const r = await rsi(['mcp', 'call', 'hostile_text']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${HOSTILE_MCP_TEXT}\n`);
  });
});
