// Sign-in where no browser can open, and a loopback listener that ignores what is not its own:
// real `bin/rsi.js login` processes against a real sandbox (auto-approving). When the opener fails
// (a $BROWSER that exits non-zero, no display, an SSH session) rsi says so at once, prints the URL,
// and takes the redirected URL pasted on stdin while its listener keeps waiting — whichever comes
// first wins. A request to the listener with a wrong or missing state, or a foreign Host, is
// answered 400 and the sign-in goes on.
import { existsSync, mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startLogin as login } from '../support/login.js';
import { startSandbox, type InProcessSandbox } from '../support/inproc.js';

let sandbox: InProcessSandbox;
beforeAll(async () => {
  sandbox = await startSandbox(['--auto-approve', '--quiet']);
});
afterAll(async () => {
  await sandbox?.stop();
});

/** `rsi login` with a live stdin; `url` resolves with the authorization URL once it is printed. */
function startLogin(env: Record<string, string | undefined>, extra: string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), 'rsi-headless-'));
  return { ...login(['--base-url', sandbox.url, ...extra], { RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file', ...env }), dir };
}

/** What the browser would be redirected to: the sandbox auto-approves. */
async function redirectOf(authorize: string): Promise<string> {
  const res = await fetch(authorize, { redirect: 'manual' });
  return res.headers.get('location')!;
}

/** A GET to the listener with any Host header (fetch cannot set one). */
function getWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request({ host: u.hostname, port: u.port, path: `${u.pathname}${u.search}`, headers: { host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe.concurrent('when no browser can open', () => {
  it('a $BROWSER that exits non-zero: said at once, the URL printed, the pasted redirect signs in', async ({ expect }) => {
    const login = startLogin({ BROWSER: 'false' });
    const authorize = await login.url;
    await expect.poll(login.stderr).toContain('Could not open a browser: the browser command false exited with status 1.');
    login.child.stdin.write(`${await redirectOf(authorize)}\n`);
    const r = await login.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`\n  ${authorize}\n`);
    expect(r.stderr).toContain('Then paste here the address the browser ends on');
    expect(r.stderr).toContain('Signed in to');
    expect(existsSync(join(login.dir, 'credentials.json'))).toBe(true);
  });

  it("a paste that is not this sign-in's address is said and ignored; the right one then signs in", async ({ expect }) => {
    const login = startLogin({ BROWSER: 'false' });
    const authorize = await login.url;
    await expect.poll(login.stderr).toContain('Could not open a browser');
    const redirect = await redirectOf(authorize);
    const foreign = new URL(redirect);
    foreign.searchParams.set('state', 'another-sign-in');
    login.child.stdin.write('not an address\n');
    await expect.poll(login.stderr).toContain('That is not an address; paste the address the browser ended on');
    login.child.stdin.write(`${foreign.href}\n`);
    await expect.poll(login.stderr).toContain('That address belongs to another sign-in (its state does not match)');
    login.child.stdin.write(`${redirect}\n`);
    const r = await login.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Signed in to');
    expect(r.stderr).not.toContain('different issuer');
  });

  const headless: [string, Record<string, string | undefined>, string][] = [
    [
      'no display on Linux',
      {
        DISPLAY: undefined,
        WAYLAND_DISPLAY: undefined,
        SSH_CONNECTION: undefined,
        SSH_CLIENT: undefined,
        SSH_TTY: undefined,
        WSL_DISTRO_NAME: undefined,
      },
      'there is no display (DISPLAY and WAYLAND_DISPLAY are unset)',
    ],
    ['an SSH session', { DISPLAY: ':0', SSH_CONNECTION: '10.0.0.2 50000 10.0.0.1 22' }, 'this is an SSH session'],
  ];
  it.for(headless)(
    '%s, no $BROWSER: said at once, and the listener still wins when the redirect reaches it',
    async ([, env, reason], { expect }) => {
      if (process.platform !== 'linux' && reason.startsWith('there is no display')) return;
      const login = startLogin(env);
      const authorize = await login.url;
      expect(login.stderr()).toContain(`Could not open a browser: ${reason}`);
      expect(login.stderr()).not.toContain('Opening your browser');
      // The browser on another machine would reach the listener through ssh -L; here, directly.
      const callback = await redirectOf(authorize);
      expect((await fetch(callback)).status).toBe(200);
      const r = await login.done;
      expect(r.code, r.stderr).toBe(0);
      expect(existsSync(join(login.dir, 'credentials.json'))).toBe(true);
    },
  );
});

describe.concurrent('the loopback listener ignores what is not its own', () => {
  it('wrong state, no state and a foreign Host get 400; the real redirect then signs in', async ({ expect }) => {
    const login = startLogin({}, ['--no-browser']);
    const authorize = new URL(await login.url);
    const redirect = authorize.searchParams.get('redirect_uri')!;
    const callback = await redirectOf(authorize.href);
    const forgedState = new URL(callback);
    forgedState.searchParams.set('state', 'guess');
    expect((await fetch(forgedState)).status).toBe(400);
    const noState = new URL(callback);
    noState.searchParams.delete('state');
    expect((await fetch(noState)).status).toBe(400);
    // A page reaching the port under its own name (DNS rebinding) sends its name in Host.
    expect(await getWithHost(callback, `evil.example:${new URL(redirect).port}`)).toBe(400);
    expect(login.child.exitCode).toBeNull();
    const real = await fetch(callback);
    expect(real.status).toBe(200);
    expect(await real.text()).toContain('Signed in to rsi');
    const r = await login.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.match(/Ignored a request to the sign-in listener/g)).toHaveLength(3);
    expect(existsSync(join(login.dir, 'credentials.json'))).toBe(true);
  });
});
