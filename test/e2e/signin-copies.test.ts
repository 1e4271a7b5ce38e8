// Issue 59, in process against a sandbox: a sign-in is told from its copy by the credentials file's
// identity (not the host name), a folder moved to another file system is asked about once or
// adopted, hand-overs cannot strand anyone, and no token rsi knows is repeated on stderr. The
// boundaries that need real processes (a UTS namespace, `mv`, /dev/full, umask, the compile cache)
// are in test/journeys/unattended-signin.test.ts.
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoredTokenProvider } from '../../src/auth/tokens.js';
import { SignInCopiedError } from '../../src/errors.js';
import { Network } from '../../src/http/network.js';
import { main } from '../../src/main.js';
import type { AuthServerInfo } from '../../src/storage/config.js';
import { FileStore, savedHere } from '../../src/storage/file-store.js';
import { FAKE_BROWSER } from '../support/browser.js';
import { cleanEnv } from '../support/cli.js';
import { type InProcessSandbox, runCli, startSandbox } from '../support/inproc.js';
import { expireTokens, sandboxStats } from '../support/sandbox.js';
import { startStub, type StubServer } from '../support/stub-server.js';

let sandbox: InProcessSandbox;
const dirs: string[] = [];
beforeAll(async () => {
  sandbox = await startSandbox(['--auto-approve', '--quiet']);
});
afterAll(async () => {
  await sandbox?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rsi-copies-'));
  dirs.push(dir);
  return dir;
}
const envOf = (dir: string, extra: Record<string, string> = {}) => ({
  RSI_CONFIG_DIR: dir,
  RSI_CREDENTIAL_STORE: 'file',
  BROWSER: FAKE_BROWSER,
  ...extra,
});
const rsi = (dir: string, args: string[], input?: string, extra: Record<string, string> = {}) =>
  runCli(args, { env: envOf(dir, extra), ...(input === undefined ? {} : { input }) });
const entries = (dir: string): Record<string, { refreshToken?: string; via?: string }> =>
  JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8'));
const refreshTokenOf = (dir: string) => Object.values(entries(dir))[0]?.refreshToken;

async function signedInFolder(): Promise<string> {
  const dir = join(folder(), 'rsi');
  const r = await rsi(dir, ['login', '--base-url', sandbox.url]);
  expect(r.code, r.stderr).toBe(0);
  return dir;
}

describe('savedHere: what tells a copy', () => {
  const saved = { host: 'laptop', machine: 'm1', dir: '/home/me/.config/rsi', file: { dev: '2049', ino: '131' } };
  it.each([
    ['the same file', saved, true],
    ['a renamed host (or a new container over the same volume)', { ...saved, host: 'pod-7f9c' }, true],
    ['the folder moved within its volume (mv)', { ...saved, dir: '/srv/rsi' }, true],
    ['the volume mounted again with another device number, at the same path', { ...saved, file: { dev: '66', ino: '131' } }, true],
    ['another device number and another path', { ...saved, dir: '/mnt/rsi', file: { dev: '66', ino: '131' } }, false],
    ['a copy (cp -a, a restored backup) beside it', { ...saved, file: { dev: '2049', ino: '977' } }, false],
    ['a copy on another machine at the same path', { ...saved, host: 'ci', machine: 'm2', file: { dev: '2049', ino: '4410' } }, false],
  ])('%s → %s', (_what, here, own) => {
    expect(savedHere(saved, here)).toBe(own);
  });

  it('an entry of an earlier rsi (no file identity) is told by its machine and folder, not its host name', () => {
    const old = { host: 'laptop', machine: 'm1', dir: '/home/me/.config/rsi' };
    expect(savedHere(old, { ...old, host: 'renamed' })).toBe(true);
    expect(savedHere(old, { ...old, dir: '/elsewhere' })).toBe(false);
    expect(savedHere(old, { ...old, machine: 'm2' })).toBe(false);
    // No machine id anywhere (some containers): the host name still counts.
    expect(savedHere({ ...old, machine: '' }, { ...old, machine: '', host: 'other' })).toBe(false);
    expect(savedHere(undefined, old)).toBe(true);
  });
});

describe('a sign-in that moves', () => {
  it('a folder moved within its volume refreshes in its new place', async () => {
    const dir = await signedInFolder();
    const moved = join(folder(), 'moved');
    renameSync(dir, moved);
    await expireTokens(sandbox, moved, 3600);
    const before = refreshTokenOf(moved);
    const r = await rsi(moved, ['projects', 'list', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(refreshTokenOf(moved)).not.toBe(before);
  });

  it('a copy beside the original is refused before its refresh token is spent, with the hand-over commands; the original keeps working', async () => {
    const original = await signedInFolder();
    const copy = join(folder(), 'copy');
    cpSync(original, copy, { recursive: true });
    await expireTokens(sandbox, copy, 3600);
    const refreshed = (await sandboxStats(sandbox)).tokens.refreshed;
    const r = await rsi(copy, ['projects', 'list']);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      `rsi: this sign-in is a copy of the one in ${original} on ${hostnameOf(original)}, which still holds it: rsi did not refresh it here, so the original keeps working\n` +
        `hint: to give this folder a sign-in of its own, on ${hostnameOf(original)} run \`(umask 077 && RSI_CONFIG_DIR=${original} rsi auth token --refresh > handover.txt)\`, then here \`rsi login --with-token --base-url ${sandbox.url} < handover.txt\` (a line works once)\n`,
    );
    expect((await sandboxStats(sandbox)).tokens.refreshed).toBe(refreshed);
    // `auth status` says the same, with the same way out.
    const status = await rsi(copy, ['auth', 'status']);
    expect(status.code).toBe(3);
    expect(status.stderr).toMatch(/^hint: to give this folder a sign-in of its own, on /m);
    // Nor can the copy hand its refresh token over (that would sign the original out).
    const handOver = await rsi(copy, ['auth', 'token', '--refresh'], undefined, { RSI_ERROR_FORMAT: 'json' });
    expect(handOver.code).toBe(3);
    expect(handOver.stdout).toBe('');
    expect(JSON.parse(handOver.stderr).code).toBe('sign_in_copied');
    await expireTokens(sandbox, original, 3600);
    const still = await rsi(original, ['projects', 'list', '--json']);
    expect(still.code, still.stderr).toBe(0);
    // Signing the copy out deletes it there and revokes nothing: the original's token is the same.
    const revoked = (await sandboxStats(sandbox)).tokens.revoked;
    const gone = join(folder(), 'gone');
    cpSync(original, gone, { recursive: true });
    const logout = await rsi(gone, ['logout']);
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.stderr).toMatch(
      /^✓ Deleted this copy of the sign-in of profile default \(saved in .*\); the original was not revoked and keeps working$/m,
    );
    expect((await sandboxStats(sandbox)).tokens.revoked).toBe(revoked);
    expect((await rsi(original, ['projects', 'list', '--json'])).code).toBe(0);
    // Following the hint gives the copy a sign-in of its own.
    const line = await rsi(original, ['auth', 'token', '--refresh']);
    expect(line.code, line.stderr).toBe(0);
    const own = await rsi(copy, ['login', '--with-token', '--base-url', sandbox.url], line.stdout);
    expect(own.code, own.stderr).toBe(0);
    await expireTokens(sandbox, copy, 3600);
    expect((await rsi(copy, ['projects', 'list', '--json'])).code).toBe(0);
  });

  it('a copy stays a copy when another profile signs in there (each write stamps only the file’s own entries)', async () => {
    const original = await signedInFolder();
    const copy = join(folder(), 'copy');
    cpSync(original, copy, { recursive: true });
    const other = await rsi(copy, ['--profile', 'other', 'login', '--base-url', sandbox.url]);
    expect(other.code, other.stderr).toBe(0);
    const store = new FileStore(copy);
    expect((await store.load({ baseUrl: sandbox.url, profile: 'default' }))?.copiedFrom).toMatchObject({ dir: original });
    expect((await store.load({ baseUrl: sandbox.url, profile: 'other' }))?.copiedFrom).toBeUndefined();
    // And signing a profile out (a new file without its entry) leaves the others the file's own.
    expect((await rsi(original, ['--profile', 'third', 'login', '--base-url', sandbox.url])).code).toBe(0);
    expect((await rsi(original, ['--profile', 'third', 'logout'])).code).toBe(0);
    expect((await new FileStore(original).load({ baseUrl: sandbox.url, profile: 'default' }))?.copiedFrom).toBeUndefined();
  });
});

describe('a folder moved to another file system (a new file, the original gone)', () => {
  async function movedAcross(): Promise<{ dir: string; provider: (confirm?: (q: string) => Promise<boolean>) => StoredTokenProvider }> {
    const original = await signedInFolder();
    // What `mv` across file systems does: copy, then remove the original.
    const dir = join(folder(), 'moved');
    cpSync(original, dir, { recursive: true });
    rmSync(original, { recursive: true });
    await expireTokens(sandbox, dir, 3600);
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as {
      profiles: Record<string, { authServer: AuthServerInfo }>;
    };
    const provider = (confirmMove?: (q: string) => Promise<boolean>) =>
      new StoredTokenProvider({
        store: new FileStore(dir),
        key: { baseUrl: sandbox.url, profile: 'default' },
        authServer: config.profiles.default!.authServer,
        configDir: dir,
        clock: { now: Date.now, sleep: async () => undefined },
        oauth: { userAgent: 'rsi/test', network: new Network({ env: {}, timeoutMs: 30_000 }) },
        warn: () => undefined,
        confirmMove,
      });
    return { dir, provider };
  }

  it('at a terminal, asks once; yes adopts it, and it refreshes', async () => {
    const { dir, provider } = await movedAcross();
    const asked: string[] = [];
    const before = refreshTokenOf(dir);
    await provider(async (q) => (asked.push(q), true)).getAccessToken();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(
      /^The sign-in of profile default was saved in .*, in another file than this one: a copy, or this folder moved to another file system\. Was it moved here, leaving no copy behind\?$/,
    );
    expect(refreshTokenOf(dir)).not.toBe(before);
    // Adopted: the next refresh asks nothing.
    await expireTokens(sandbox, dir, 3600);
    await provider(async (q) => (asked.push(q), true)).getAccessToken();
    expect(asked).toHaveLength(1);
  });

  it('no at the terminal: refused as a copy, nothing refreshed', async () => {
    const { dir, provider } = await movedAcross();
    const refreshed = (await sandboxStats(sandbox)).tokens.refreshed;
    const before = refreshTokenOf(dir);
    await expect(provider(async () => false).getAccessToken()).rejects.toBeInstanceOf(SignInCopiedError);
    expect((await sandboxStats(sandbox)).tokens.refreshed).toBe(refreshed);
    expect(refreshTokenOf(dir)).toBe(before);
  });

  it('unattended: says what to run; `rsi auth adopt` keeps the sign-in, which then refreshes', async () => {
    const { dir } = await movedAcross();
    const r = await rsi(dir, ['projects', 'list']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /^rsi: this sign-in was saved in .* and this is a copy of that file \(cp, a restored backup\) or the folder moved to another file system: rsi did not refresh it here/m,
    );
    expect(r.stderr).toMatch(/; if this folder was moved here and no copy is left, keep its sign-in with `rsi auth adopt`\n$/);
    const adopt = await rsi(dir, ['auth', 'adopt']);
    expect(adopt.code, adopt.stderr).toBe(0);
    expect(adopt.stderr).toMatch(/^✓ The sign-in of profile default \(saved in .*\) now belongs to /);
    const after = await rsi(dir, ['projects', 'list', '--json']);
    expect(after.code, after.stderr).toBe(0);
    expect((await rsi(dir, ['auth', 'adopt'])).stderr).toMatch(/already belongs to this folder/);
  });
});

describe('hand-overs that cannot strand anyone', () => {
  it('a failed write keeps the sign-in where it was', async () => {
    const dir = await signedInFolder();
    const before = refreshTokenOf(dir);
    const full = new Writable({
      write(_chunk, _encoding, done) {
        done(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' }));
      },
    });
    full.on('error', () => undefined);
    const stderr = capture();
    const code = await main({
      argv: ['auth', 'token', '--refresh'],
      env: cleanEnv(envOf(dir)),
      stdio: { stdin: new PassThrough().end(), stdout: full, stderr: stderr.stream },
    });
    expect(code).toBe(12);
    expect(stderr.text()).toMatch(/^Nothing was handed over: the line could not be written, so profile default keeps its sign-in here\.$/m);
    expect(stderr.text()).not.toMatch(/handed over and removed/);
    expect(refreshTokenOf(dir)).toBe(before);
    await expireTokens(sandbox, dir, 3600);
    expect((await rsi(dir, ['projects', 'list', '--json'])).code).toBe(0);
  });

  it('a line used twice: the second machine and the first both say what happened and give the headless recovery', async () => {
    const workstation = await signedInFolder();
    const line = (await rsi(workstation, ['auth', 'token', '--refresh'])).stdout;
    const first = join(folder(), 'first');
    expect((await rsi(first, ['login', '--with-token', '--base-url', sandbox.url], line)).code).toBe(0);
    expect(entries(first)[`default ${sandbox.url}`]?.via).toBe('hand-over');
    const second = join(folder(), 'second');
    const replay = await rsi(second, ['login', '--with-token', '--base-url', sandbox.url], line, { RSI_ERROR_FORMAT: 'json' });
    expect(replay.code).toBe(3);
    const said = JSON.parse(replay.stderr);
    expect(said.code).toBe('hand_over_spent');
    expect(said.message).toMatch(
      /used before \(a line works once\).*signed out every copy of that sign-in, the machine that used it first included/,
    );
    expect(said.hint).toMatch(
      /^on a machine that is signed in, run `\(umask 077 && rsi auth token --refresh > handover.txt\)`, then here `rsi login --with-token --base-url \S+ < handover.txt`/,
    );
    expect(said.hint).not.toMatch(/`rsi login`/);
    // The sandbox detects reuse: the first machine's sign-in went with it, and it says why.
    await expireTokens(sandbox, first, 3600);
    const after = await rsi(first, ['projects', 'list'], undefined, { RSI_ERROR_FORMAT: 'json' });
    expect(after.code).toBe(3);
    const told = JSON.parse(after.stderr);
    expect(told.code).toBe('hand_over_spent');
    expect(told.message).toMatch(
      /came from a hand-over line: .*the line was used a second time, and then the service signs out every copy/,
    );
    expect(told.hint).toMatch(/^get a fresh line: on a machine that is signed in, run /);
  });

  it('--with-token obeys --timeout when stdin never ends', async () => {
    const stdin = new PassThrough();
    const stderr = capture();
    const started = Date.now();
    const code = await main({
      argv: ['login', '--with-token', '--base-url', sandbox.url, '--timeout', '1'],
      env: cleanEnv(envOf(join(folder(), 'rsi'))),
      stdio: { stdin, stdout: capture().stream, stderr: stderr.stream },
    });
    expect(code).toBe(3);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(stderr.text()).toMatch(/^rsi: timed out after 1 s waiting for the hand-over line on stdin; nothing was stored$/m);
  });
});

describe('secrets never echo', () => {
  let echo: StubServer;
  let echoUrl: string;
  beforeAll(async () => {
    // A service that repeats the bearer token it got in its error, as a careless one might.
    echo = await startStub((req, res, body) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      // The token endpoint echoes the refresh token it was sent; the API the bearer token.
      const refresh = new URLSearchParams(body).get('refresh_token');
      res.end(
        JSON.stringify({
          error: refresh ? `refresh token ${refresh} is not valid` : `bad request from ${req.headers.authorization ?? 'nobody'}`,
        }),
      );
    });
    echoUrl = echo.url;
  });
  afterAll(() => echo?.close());
  const TOKEN = 'rsi-test-access-token-0123456789';

  it.each([
    ['a message', {}, []],
    ['a JSON error', { RSI_ERROR_FORMAT: 'json' }, []],
    ['the --debug trace', {}, ['--debug']],
  ])('a token the service echoes is redacted from %s', async (_what, extra, flags) => {
    const r = await runCli(['projects', 'list', ...flags], { env: { RSI_TOKEN: TOKEN, RSI_BASE_URL: echoUrl, ...extra } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('bad request from Bearer [redacted]');
    expect(r.stderr).not.toContain(TOKEN);
  });

  it('a refresh token the authorization server echoes is redacted too, with --debug as well', async () => {
    const refreshToken = 'rsi-test-refresh-token-9876543210';
    const dir = folder();
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({
        version: 1,
        profiles: {
          default: { baseUrl: echoUrl, authServer: { issuer: echoUrl, token_endpoint: `${echoUrl}/oauth/token` }, credentialStore: 'file' },
        },
      }),
      { mode: 0o600 },
    );
    writeFileSync(
      join(dir, 'credentials.json'),
      JSON.stringify({
        [`default ${echoUrl}`]: { accessToken: 'expired-access-0000', refreshToken, expiresAt: 1, scope: '', clientId: 'c1' },
      }),
      { mode: 0o600 },
    );
    for (const flags of [[], ['--debug']]) {
      const r = await runCli(['projects', 'list', ...flags], { env: { RSI_CONFIG_DIR: dir } });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('[redacted]');
      expect(r.stderr).not.toContain(refreshToken);
    }
  });

  it('a token given as an argument is refused without repeating it', async () => {
    for (const args of [
      ['login', '--with-token', 'rsi-refresh.c2VjcmV0LXNlY3JldA'],
      ['auth', 'token', 'rsi-refresh.c2VjcmV0LXNlY3JldA'],
    ]) {
      const r = await runCli(args, { env: { RSI_CONFIG_DIR: join(folder(), 'rsi') } });
      expect(r.code).toBe(2);
      expect(r.stderr).not.toContain('c2VjcmV0');
      expect(r.stderr).toMatch(/takes no arguments; the one given was not used \(and is not repeated here: a token is a secret\)\nhint: /);
    }
  });

  it('an expired RSI_TOKEN says to renew that variable, not to sign in', async () => {
    const r = await runCli(['projects', 'list'], { env: { RSI_TOKEN: 'expired-or-never-valid', RSI_BASE_URL: sandbox.url } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^rsi: the service refused the access token in RSI_TOKEN \(expired, revoked, or not for this service\)/);
    expect(r.stderr).toMatch(/^hint: renew RSI_TOKEN with a fresh access token/m);
    expect(r.stderr).not.toMatch(/rsi login`/);
  });
});

function capture(): { stream: Writable; text(): string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** The host name the sign-in recorded (this machine's). */
function hostnameOf(dir: string): string {
  return (Object.values(JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')))[0] as { home: { host: string } }).home.host;
}
