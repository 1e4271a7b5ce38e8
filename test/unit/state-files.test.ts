// rsi's state files (src/storage/state.ts) in a cache folder that may sit in a shared place: never
// written or read through a link, in a folder that is the user's and writable by nobody else.
// Real files and links in a temporary folder; another user is simulated through the TrustHost's uid.
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  lchownSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { cacheFolderIssue } from '../../src/auth/disk-trust.js';
import { ensureStateFolder, readState, StateFolderRefusedError, stateFolderIssue, writeState } from '../../src/storage/state.js';
import type { TrustHost } from '../../src/storage/trust.js';

const posix = process.platform !== 'win32';
const me: TrustHost = { platform: process.platform, uid: process.getuid?.(), userName: 'me' };
let work: string;

beforeEach(() => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'rsi-state-')));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

describe.skipIf(!posix)('state files', () => {
  it('creates the folder 0700 and the file 0600, and tightens a 0755 folder rsi made earlier', async () => {
    const dir = join(work, 'cache', 'rsi');
    await writeState(dir, 'update-check.json', { latest: '1.2.3' }, me);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'update-check.json')).mode & 0o777).toBe(0o600);
    expect(readState(join(dir, 'update-check.json'))).toEqual({ latest: '1.2.3' });
    chmodSync(dir, 0o755);
    await ensureStateFolder(dir, me);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('a link planted where the state file goes is replaced, and the file it pointed at is untouched', async () => {
    const dir = join(work, 'rsi');
    mkdirSync(dir, { mode: 0o700 });
    const victim = join(work, 'victim.txt');
    writeFileSync(victim, 'precious\n');
    symlinkSync(victim, join(dir, 'update-check.json'));
    // Read: not through the link.
    expect(readState(join(dir, 'update-check.json'))).toBeUndefined();
    await writeState(dir, 'update-check.json', { latest: '2.0.0' }, me);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(lstatSync(join(dir, 'update-check.json')).isSymbolicLink()).toBe(false);
    expect(readState(join(dir, 'update-check.json'))).toEqual({ latest: '2.0.0' });
  });

  it('the temporary file is created exclusively: a link planted at its name is never written through', async () => {
    const dir = join(work, 'rsi');
    mkdirSync(dir, { mode: 0o700 });
    const victim = join(work, 'victim.txt');
    writeFileSync(victim, 'precious\n');
    // The name writeState will pick, planted first as a link (as a guesser of a predictable name would).
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.5);
    try {
      symlinkSync(victim, join(dir, `.update-check.json.${process.pid}.${(0.5).toString(36).slice(2)}.tmp`));
      await expect(writeState(dir, 'update-check.json', { latest: '6.6.6' }, me)).rejects.toThrow(/cannot write/);
    } finally {
      random.mockRestore();
    }
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
  });

  it('a folder others can write, or another user owns, is refused with the fix; nothing is written', async () => {
    const dir = join(work, 'open');
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    const refused = await writeState(dir, 'update-check.json', {}, me).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StateFolderRefusedError);
    expect((refused as Error).message).toBe(`refusing to use ${dir}: it can be written by other users (mode 777); fix: chmod 700 ${dir}`);
    expect(existsSync(join(dir, 'update-check.json'))).toBe(false);

    // Another user's folder: as root (CI), one chowned to uid 4242; else ours, seen by a host of another uid.
    const theirs = join(work, 'theirs');
    mkdirSync(theirs, { mode: 0o700 });
    if (me.uid === 0) chownSync(theirs, 4242, 4242);
    const other: TrustHost = me.uid === 0 ? me : { ...me, uid: (me.uid ?? 0) + 4242 };
    const issue = await stateFolderIssue(theirs, other);
    expect(issue?.problem).toMatch(/owned by another user/);
    await expect(writeState(theirs, 'update-check.json', {}, other)).rejects.toBeInstanceOf(StateFolderRefusedError);
  });

  it('doctor finds the same problem in the cache folder, with its fix', async () => {
    mkdirSync(join(work, 'rsi'));
    chmodSync(join(work, 'rsi'), 0o777);
    expect(await cacheFolderIssue({ XDG_CACHE_HOME: work })).toEqual({
      dir: join(work, 'rsi'),
      issue: { path: join(work, 'rsi'), problem: 'can be written by other users (mode 777)', fix: `chmod 700 ${join(work, 'rsi')}` },
    });
    chmodSync(join(work, 'rsi'), 0o700);
    expect((await cacheFolderIssue({ XDG_CACHE_HOME: work })).issue).toBeUndefined();
  });

  it("a link as the folder itself: followed only when it is the user's own", async () => {
    const real = join(work, 'elsewhere');
    mkdirSync(real, { mode: 0o700 });
    const link = join(work, 'rsi');
    symlinkSync(real, link, 'dir');
    // The user's own link (e.g. the cache moved to another disk): fine.
    await writeState(link, 'update-check.json', { latest: '1.0.0' }, me);
    expect(readState(join(real, 'update-check.json'))).toEqual({ latest: '1.0.0' });
    // A link another user made (planted in a shared cache folder): refused. Root's links count as
    // the user's own (root can do anything anyway), so as root the link is handed to another uid.
    if (me.uid === 0) lchownSync(link, 4243, 0);
    const seenBy: TrustHost = me.uid === 0 ? me : { ...me, uid: (me.uid ?? 0) + 4242 };
    expect((await stateFolderIssue(link, seenBy))?.problem).toMatch(/symbolic link made by another user/);
  });
});
