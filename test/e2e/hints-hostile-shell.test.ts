// Every command rsi suggests is something a person pastes into a shell, and its words often come
// from the service (a scope in a 403, a project name) or from what the person typed. Here each one
// is printed with hostile text in those words, then pasted into real bash with a recorder as `rsi`
// on PATH: nothing but `rsi` may run (no file appears), and `rsi` gets exactly the words rsi meant,
// the hostile text among them as one argument. The sources: the API's 403 insufficient_scope, the
// MCP server's WWW-Authenticate scope challenge, an unfollowed redirect, hostile project and
// keyword names (watch, status, create, resolve), habits and the quote hint.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandWords } from '../../src/io/text.js';
import { type CliResult, runCli } from '../support/cli.js';
import { useSandbox } from '../support/e2e.js';
import { startStub, type StubServer } from '../support/stub-server.js';

/** Text that runs `touch` if a shell ever reads it as code rather than as one word. */
const NAME = `P $(touch\${IFS}PWNED1) \`touch PWNED2\`; touch PWNED3 '"' $HOME !x & exit`;
const SCOPE = 'mcp:basic,x$(touch${IFS}PWNED4);touch${IFS}PWNED5;`touch${IFS}PWNED6`|tee${IFS}PWNED7';

const e2e = useSandbox();
const dirs: string[] = [];
let bin: string;
let hostile: StubServer;
let hostileUrl: string;

beforeAll(async () => {
  bin = fresh('rsi-recorder-');
  // The recorder: each argument NUL-terminated, one line per run.
  writeFileSync(join(bin, 'rsi'), '#!/bin/sh\n{ for a in "$@"; do printf \'%s\\0\' "$a"; done; printf \'\\n\'; } >> "$RSI_RECORD"\n');
  chmodSync(join(bin, 'rsi'), 0o755);
  hostile = await startStub((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x.test');
    if (url.pathname === '/mcp') {
      res.writeHead(403, {
        'content-type': 'application/json',
        'www-authenticate': `Bearer error="insufficient_scope", scope="${SCOPE}"`,
      });
      res.end('{"error":"insufficient_scope"}');
    } else if (url.pathname.startsWith('/api/v1/moved')) {
      res.writeHead(302, { location: `${hostileUrl}/elsewhere` });
      res.end();
    } else {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'insufficient_scope', scope: SCOPE }));
    }
  });
  hostileUrl = hostile.url;
});

afterAll(async () => {
  await hostile?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function fresh(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** Every command rsi suggested in its output: in backticks, after "in rsi:" and after "as in". */
function suggested(r: CliResult): string[] {
  const text = `${r.stdout}\n${r.stderr}`;
  const found = [
    ...[...text.matchAll(/`(rsi(?: [^`\n]*)?)`/g)].map((m) => m[1]!),
    ...[...text.matchAll(/(?:; in rsi: |, as in )(rsi .*)$/gm)].map((m) => m[1]!),
  ];
  // A placeholder (`<url>`, `…`) is for the person to fill in, not to paste as it is.
  return found.filter((c) => !/<\w+>|…/.test(c));
}

/** Pastes `command` into bash in an empty folder; returns what the recorder got and what appeared. */
function paste(command: string): { runs: string[][]; created: string[] } {
  const cwd = fresh('rsi-paste-');
  const record = join(fresh('rsi-record-'), 'record');
  writeFileSync(record, '');
  const r = spawnSync('bash', ['--noprofile', '--norc', '-c', command], {
    cwd,
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: cwd, RSI_RECORD: record },
    encoding: 'utf8',
  });
  expect(r.status, `${command}\n${r.stderr}`).toBe(0);
  const runs = readFileSync(record, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split('\0').slice(0, -1));
  return { runs, created: readdirSync(cwd) };
}

/** Each suggested command, pasted: exactly one run of `rsi` with the words rsi meant, nothing else. */
function followEach(r: CliResult, hostileText: string): void {
  const commands = suggested(r);
  expect(commands.length, `a suggested command in:\n${r.stderr}`).toBeGreaterThan(0);
  expect(
    commands.some((c) => commandWords(c)?.some((w) => w.word.includes(hostileText))),
    `the hostile text is in a hint:\n${commands.join('\n')}`,
  ).toBe(true);
  for (const command of commands) {
    const meant = commandWords(command);
    expect(meant, `rsi can read back ${command}`).toBeDefined();
    const { runs, created } = paste(command);
    expect(created, command).toEqual([]);
    expect(runs, command).toEqual([meant!.slice(1).map((w) => w.word)]);
  }
}

describe('suggested commands pasted into bash run rsi and nothing else', () => {
  it("the API's 403 insufficient_scope with a hostile scope (with and without --profile)", async () => {
    const env = { RSI_BASE_URL: hostileUrl, RSI_CONFIG_DIR: fresh('rsi-cfg-') };
    const fromEnv = await runCli(['projects', 'list'], { env: { ...env, RSI_TOKEN: 'tok' } });
    expect(fromEnv.code).toBe(4);
    followEach(fromEnv, SCOPE);
    const underProfile = await runCli(['--profile', 'work', 'projects', 'list'], { env: { ...env, RSI_TOKEN: 'tok' } });
    followEach(underProfile, SCOPE);
  });

  it("the MCP server's WWW-Authenticate scope challenge with a hostile scope", async () => {
    const r = await runCli(['mcp', 'tools'], {
      env: { RSI_BASE_URL: hostileUrl, RSI_CONFIG_DIR: fresh('rsi-cfg-'), RSI_MCP_TOKEN: 'tok' },
    });
    expect(r.code).toBe(4);
    followEach(r, 'touch${IFS}PWNED4');
  });

  it('an unfollowed redirect of a hostile path', async () => {
    const path = `/moved/${encodeURIComponent('x')}$(touch\${IFS}PWNED8)`;
    const r = await runCli(['api', path], { env: { RSI_BASE_URL: hostileUrl, RSI_CONFIG_DIR: fresh('rsi-cfg-'), RSI_TOKEN: 'tok' } });
    expect(r.code).toBe(1);
    followEach(r, 'PWNED8');
  });

  it('a hostile project name: the watch that timed out, the status, the project just made', async () => {
    await e2e.newProject(NAME, { setup: false });
    // 1 s: --timeout bounds the whole command (sign-in, lookup, watch); a busy machine must reach the watch.
    followEach(await e2e.rsi(['status', NAME, '--watch', '--interval', '0.1', '--timeout', '1']), NAME);
    followEach(await e2e.rsi(['status', NAME, '--format', 'table']), NAME);
    const made = await e2e.rsi(['projects', 'create', '--name', `${NAME} 2`, '--format', 'table']);
    expect(made.code, made.stderr).toBe(0);
    followEach(made, `${NAME} 2`);
  });

  it('a hostile keyword name that matches nothing', async () => {
    const r = await e2e.rsi(['keywords', 'get', NAME]);
    expect(r.code).toBe(2);
    followEach(r, NAME);
  });

  it('habits and the quote hint, typed with hostile words', async () => {
    for (const argv of [
      ['projects', 'view', NAME],
      ['signals', NAME, '--watch'],
      ['status', '-n', NAME],
      ['--profile', 'work', 'auth', 'login'],
      ['status', 'a', NAME, 'b'],
    ]) {
      const r = await e2e.rsi(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      followEach(r, argv.includes(NAME) ? NAME : 'work');
    }
  });
});
