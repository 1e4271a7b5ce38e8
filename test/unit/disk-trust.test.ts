// Trust nothing on disk by accident (like ssh): a config folder or file that other users can write
// or that another user owns, and a credentials path that is a symbolic link, are refused with a
// one-line error naming the path and the fix; `diskTrustIssues` (what doctor lists) finds each.
import { chmod, chown, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { ConfigStore, diskTrustIssues } from '../../src/storage/config.js';
import { FileStore } from '../../src/storage/file-store.js';
import { currentHost, trustIssue, type TrustHost } from '../../src/storage/trust.js';
import { runChecks } from '../../src/commands/doctor/doctor.js';
import { fakeCtx, fakeIo } from '../support/fakes.js';

const NOBODY = 65534;
const key = { baseUrl: 'https://svc.example', profile: 'default' };
let dir: string;
beforeEach(async () => {
  dir = join(await mkdtemp(join(tmpdir(), 'rsi-trust-')), 'rsi');
  await mkdir(dir, { mode: 0o700 });
  await writeFile(join(dir, 'config.json'), '{"version":1,"profiles":{}}\n', { mode: 0o600 });
  await writeFile(join(dir, 'credentials.json'), '{}\n', { mode: 0o600 });
});
afterEach(async () => {
  await rm(join(dir, '..'), { recursive: true, force: true });
});

/** chown needs privileges: where it is not allowed, the test says so and skips. */
async function canChown(path: string): Promise<boolean> {
  try {
    await chown(path, NOBODY, NOBODY);
    return true;
  } catch (error) {
    console.warn(`[skip] "owned by another user" needs chown (${(error as NodeJS.ErrnoException).code}); run as root to test it`);
    return false;
  }
}

describe('what is refused', () => {
  it('a private folder and 0600 files are trusted', async () => {
    expect(await diskTrustIssues(dir)).toEqual([]);
    await expect(new ConfigStore(dir).read()).resolves.toEqual({ version: 1, profiles: {} });
    await expect(new FileStore(dir).load(key)).resolves.toBeUndefined();
  });

  it('a config folder others can write: refused, with chmod 700 as the fix', async () => {
    await chmod(dir, 0o777);
    const error = (await new ConfigStore(dir).read().catch((e: unknown) => e)) as ConfigError;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(`refusing to use ${dir}: it can be written by other users (mode 777); fix: chmod 700 ${dir}`);
    await expect(new FileStore(dir).load(key)).rejects.toThrow(`chmod 700 ${dir}`);
    expect(await diskTrustIssues(dir)).toEqual([{ path: dir, problem: expect.stringContaining('other users'), fix: `chmod 700 ${dir}` }]);
  });

  it('group write alone is enough to refuse a file', async () => {
    const file = join(dir, 'config.json');
    await chmod(file, 0o620);
    await expect(new ConfigStore(dir).read()).rejects.toThrow(`fix: chmod 600 ${file}`);
    await chmod(join(dir, 'credentials.json'), 0o602);
    await expect(new FileStore(dir).load(key)).rejects.toThrow(`fix: chmod 600 ${join(dir, 'credentials.json')}`);
  });

  it('a credentials path that is a symbolic link is refused, even to a private file', async () => {
    const target = join(dir, '..', 'elsewhere.json');
    await writeFile(target, '{}\n', { mode: 0o600 });
    await rm(join(dir, 'credentials.json'));
    await symlink(target, join(dir, 'credentials.json'));
    await expect(new FileStore(dir).load(key)).rejects.toThrow(/credentials\.json: it is a symbolic link/);
    const saving = new FileStore(dir).save(key, { accessToken: 'a', expiresAt: 1, scope: '', clientId: 'c' });
    await expect(saving).rejects.toBeInstanceOf(ConfigError);
    expect((await diskTrustIssues(dir)).map((i) => i.fix)).toEqual([`rm ${join(dir, 'credentials.json')}, then sign in again`]);
  });

  it('a config.json that is a symlink to a private file of ours is fine (dotfile managers do this)', async () => {
    const target = join(dir, '..', 'dotfiles-config.json');
    await writeFile(target, '{"version":1,"profiles":{}}\n', { mode: 0o600 });
    await rm(join(dir, 'config.json'));
    await symlink(target, join(dir, 'config.json'));
    await expect(new ConfigStore(dir).read()).resolves.toEqual({ version: 1, profiles: {} });
  });

  it('a file or folder owned by another user is refused with chown as the fix', async (t) => {
    const file = join(dir, 'config.json');
    if (!(await canChown(file))) return t.skip();
    const host: TrustHost = { ...currentHost(), uid: process.getuid!(), userName: 'alice' };
    await expect(new ConfigStore(dir, host).read()).rejects.toThrow(
      `refusing to use ${file}: it is owned by another user (uid ${NOBODY}); fix: chown alice ${file}`,
    );
    await chown(dir, NOBODY, NOBODY);
    expect((await diskTrustIssues(dir, host)).map((i) => i.path)).toEqual([dir, file]);
  });

  it('root-owned is trusted (root can do anything anyway), as ssh allows', async () => {
    // The files are ours; pretend we are someone else whose files root owns.
    const host: TrustHost = { platform: 'linux', uid: 4242, userName: 'bob' };
    const issue = await trustIssue(dir, 'folder', host);
    if (process.getuid?.() === 0) expect(issue).toBeUndefined();
    else expect(issue?.fix).toBe(`chown bob ${dir}`);
  });

  it('Windows has no POSIX modes or uids: nothing is refused there', async () => {
    await chmod(dir, 0o777);
    expect(await diskTrustIssues(dir, { platform: 'win32', uid: undefined, userName: undefined })).toEqual([]);
  });

  it('an absent folder is not a problem (nothing to trust yet)', async () => {
    expect(await diskTrustIssues(join(dir, 'missing'))).toEqual([]);
  });
});

describe('doctor', () => {
  it('reports each problem with its fix, and a clean folder as ok', async () => {
    const ctx = fakeCtx(fakeIo(), { env: { RSI_CONFIG_DIR: dir } });
    const clean = (await runChecks(ctx)).filter((c) => c.name === 'file permissions');
    expect(clean).toEqual([{ name: 'file permissions', ok: true, detail: `only you can change ${dir}` }]);
    await chmod(dir, 0o770);
    await chmod(join(dir, 'credentials.json'), 0o666);
    const checks = (await runChecks(ctx)).filter((c) => c.name === 'file permissions');
    expect(checks.map((c) => [c.ok, c.hint])).toEqual([
      [false, `chmod 700 ${dir}`],
      [false, `chmod 600 ${join(dir, 'credentials.json')}`],
    ]);
  });
});
