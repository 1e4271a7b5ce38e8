// Every hint rsi prints here is followed, as printed, and must fix what it names: a refused stored
// sign-in under --profile (the hint signs in that profile, not the default one), a base URL that
// is not the service's own address, a --timeout, and Ctrl-C in a --watch (the service goes on).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { shellWords } from '../../src/io/help-text.js';
import { RSI_BIN, cleanEnv, runCli } from '../support/cli.js';
import { useSandbox } from '../support/e2e.js';
import { advanceSandbox } from '../support/sandbox.js';
import { FAKE_BROWSER } from '../support/browser.js';

const e2e = useSandbox();
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rsi-hints-'));
  dirs.push(dir);
  return dir;
}

/** The command in a hint's backticks, as the words a shell would pass. */
function hintCommand(stderr: string): string[] {
  const line = /^hint: .*`(rsi [^`]*)`/m.exec(stderr)?.[1];
  expect(line, `a command in the hint:\n${stderr}`).toBeDefined();
  return shellWords(line!.replace(/^rsi /, '')).map((w) => (/^(["']).*\1$/.test(w) ? w.slice(1, -1) : w));
}

describe('hints followed as printed', () => {
  it('a refused sign-in under --profile names that profile, and the hint signs it in again', async () => {
    const dir = freshDir();
    const env = { RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file', BROWSER: FAKE_BROWSER };
    const login = await runCli(['--profile', 'ttl', 'login', '--base-url', e2e.url], { env });
    expect(login.code, login.stderr).toBe(0);
    // The service refuses the stored refresh token: the access token is due, the refresh is refused.
    const file = join(dir, 'credentials.json');
    const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { expiresAt: number; refreshToken?: string }>;
    for (const entry of Object.values(stored)) Object.assign(entry, { expiresAt: Date.now() - 1000, refreshToken: 'refused' });
    writeFileSync(file, JSON.stringify(stored), { mode: 0o600 });

    const refused = await runCli(['--profile', 'ttl', 'projects', 'list'], { env });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/^hint: run `rsi login --profile ttl`$/m);
    const again = await runCli(hintCommand(refused.stderr), { env });
    expect(again.code, again.stderr).toBe(0);
    const after = await runCli(['--profile', 'ttl', 'projects', 'list'], { env });
    expect(after.code, after.stderr).toBe(0);
  });

  it('--base-url http://localhost:… where the service calls itself 127.0.0.1 names the URL to use', async () => {
    const dir = freshDir();
    const env = { RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file', BROWSER: FAKE_BROWSER };
    const wrong = e2e.url.replace('127.0.0.1', 'localhost');
    const r = await runCli(['login', '--base-url', wrong], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `rsi: the service at ${wrong} calls itself ${e2e.url} (its OAuth issuer), and the two must be the same address\n` +
        `hint: use --base-url ${e2e.url} instead\n`,
    );
    const fixed = await runCli(['login', '--base-url', /--base-url (\S+) instead/.exec(r.stderr)![1]!], { env });
    expect(fixed.code, fixed.stderr).toBe(0);
  });

  it('Ctrl-C in --watch says the service goes on, and --timeout names the project; both resume', async () => {
    const name = 'Hint watch';
    await e2e.newProject(name);
    // Ctrl-C once the first status is on screen.
    const child = spawn(process.execPath, [RSI_BIN, 'status', name, '--watch', '--interval', '0.2'], {
      env: cleanEnv({ RSI_TOKEN: e2e.token, RSI_BASE_URL: e2e.url, RSI_CONFIG_DIR: e2e.configDir }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const firstLine = new Promise<void>((resolve) =>
      child.stderr.setEncoding('utf8').on('data', (c: string) => {
        stderr += c;
        if (stderr.includes('\n')) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await firstLine;
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toMatch(
      /^rsi: interrupted\nhint: only the watching stopped: the service goes on with the work; to follow it again, run `rsi status "Hint watch" --watch`\n$/m,
    );

    // --timeout bounds the whole command from its action (the sign-in and the lookup too): 1 s, so a
    // busy machine still reaches the watch, whose timeout hint this follows.
    const timedOut = await e2e.rsi(['status', name, '--watch', '--interval', '0.1', '--timeout', '1']);
    expect(timedOut.code).toBe(9);
    expect(timedOut.stderr).toContain('hint: watch again with `rsi status "Hint watch" --watch`');
    expect(timedOut.stderr).not.toContain('<project>');
    // The work went on at the service: followed once it is done, the hint's command ends with 0.
    await advanceSandbox(e2e.sandbox, 24 * 3600);
    const fresh = await e2e.tokenFor(['service:read', 'projects:write', 'analyses:run']);
    const resumed = await e2e.rsi(hintCommand(timedOut.stderr), { as: fresh });
    expect(resumed.code, resumed.stderr).toBe(0);
  });
});

// Every habit's answer is followed by test/e2e/habits.test.ts, from the habit table's own examples.
describe('rsi api hints, followed as printed', () => {
  // The watch test above moves the sandbox's clock a day on: the file's token has expired by now.
  const ALL = ['service:read', 'projects:write', 'analyses:run'];
  let token: string | undefined;
  const rsi = async (argv: string[]) => e2e.rsi(argv, { as: (token ??= await e2e.tokenFor(ALL)) });

  it('rsi api with fields and no method gets a 405: the hint says -X GET, and following it works', async () => {
    const posted = await rsi(['api', '/keywords', '-f', 'q=egfr', '-F', 'limit=2']);
    expect(posted.code).not.toBe(0);
    expect(posted.stderr).toMatch(
      /^hint: fields make rsi api send a POST \(as gh api does\); to send them as the query of a GET, run `rsi api -X GET \/keywords -F limit=2 -f q=egfr`$/m,
    );
    const followed = await rsi(hintCommand(posted.stderr));
    expect(followed.code, followed.stderr).toBe(0);
    // The fields went as the query: the search's hits are EGFR's, at most 2 of them.
    const hits = (JSON.parse(followed.stdout) as { data: { name: string }[] }).data;
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThanOrEqual(2);
    expect(hits.map((h) => h.name).join(' ')).toMatch(/egfr/i);
  });

  it('rsi api refuses a --format it cannot honour (exit 2) and keeps json', async () => {
    const csv = await rsi(['api', '/projects', '--format', 'csv']);
    expect(csv.code).toBe(2);
    expect(csv.stdout).toBe('');
    expect(csv.stderr).toMatch(/^rsi: rsi api prints the service's JSON reply as it is: --format csv does not apply$/m);
    const json = await rsi(['api', '/projects', '--format', 'json']);
    expect(json.code, json.stderr).toBe(0);
    expect(() => JSON.parse(json.stdout)).not.toThrow();
  });
});
