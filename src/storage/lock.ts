/**
 * Inter-process locks in the config folder (proper-lockfile: an atomic `mkdir`, kept fresh while
 * held, taken over when its holder has crashed). Two uses: the short store lock around every
 * read-modify-write of a file all profiles share (credentials.json, config.json), and the per-profile
 * refresh lock held across a refresh's network call.
 *
 * Beside each lock its holder writes `<lock>.owner` (pid, host, the lock directory's inode). A lock
 * whose owner on this machine is no longer running is taken over at once, not after `staleMs`: a
 * refresh killed by SIGKILL (or the OOM killer) must not make the next cron run wait ~20 s. A lock
 * held from another machine (a shared home) or with no owner file still goes stale by its age.
 */
import { hostname } from 'node:os';
import { CredentialStoreError, InterruptedError } from '../errors.js';
import { readFile, rename, rm, stat, writeFile } from './fs.js';

export interface LockOptions {
  /** A lock whose holder has not touched it for this long belongs to a crashed process. */
  staleMs: number;
  /** Called once when the lock is still not ours after `noteAfterMs`: someone else holds it. */
  onWait?: ((waitedMs: number) => void) | undefined;
  noteAfterMs?: number | undefined;
  signal?: AbortSignal | undefined;
  /** What the lock protects, for the error message. */
  what: string;
}

export type Release = () => Promise<void>;

/** About a minute of patience in all: the holder either finishes or goes stale long before. */
const PATIENCE_MS = 60_000;

interface Owner {
  pid: number;
  host: string;
  ino: number;
}

/** Waits for the lock directory `lockPath` and returns its release; never throws on release. */
export async function acquireLock(lockPath: string, options: LockOptions): Promise<Release> {
  // proper-lockfile is CommonJS: its functions sit on the default export once bundled.
  const lockfile = await import('proper-lockfile');
  const lock = (lockfile.lock ?? (lockfile as unknown as { default: typeof lockfile }).default.lock) as typeof lockfile.lock;
  if (options.signal?.aborted) throw new InterruptedError();
  const noteAfter = options.noteAfterMs ?? 1000;
  const started = Date.now();
  const note = options.onWait ? setTimeout(() => options.onWait?.(Date.now() - started), noteAfter) : undefined;
  note?.unref();
  try {
    for (let attempt = 0; ; attempt++) {
      await takeOverIfHolderGone(lockPath);
      try {
        const release = await lock(lockPath, {
          lockfilePath: lockPath,
          realpath: false,
          stale: options.staleMs,
          update: Math.max(1000, Math.floor(options.staleMs / 4)),
          retries: 0,
          // Our writes are atomic renames: a lock found compromised (its mtime was reset by a clock
          // jump or a slow disk) must not crash the process from a timer; the write still completes.
          onCompromised: () => undefined,
        });
        const owner = await claim(lockPath);
        return async () => {
          if (owner) await disown(lockPath, owner);
          await release().catch(() => undefined);
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ELOCKED' || Date.now() - started > PATIENCE_MS) throw error;
      }
      await pause(Math.min(250, 10 * 1.3 ** attempt), options.signal);
    }
  } catch (error) {
    if (error instanceof InterruptedError) throw error;
    throw new CredentialStoreError(`cannot lock ${lockPath} to ${options.what}: ${(error as Error).message}`, {
      hint: `if no other rsi is running, delete ${lockPath}`,
      cause: error,
    });
  } finally {
    clearTimeout(note);
  }
}

/** Runs `fn` holding the lock; the lock is released whatever `fn` does. */
export async function withLock<T>(lockPath: string, options: LockOptions, fn: () => Promise<T>): Promise<T> {
  const release = await acquireLock(lockPath, options);
  try {
    return await fn();
  } finally {
    await release();
  }
}

/** Writes who holds the lock (atomically); a lock without it only goes stale by age. */
async function claim(lockPath: string): Promise<Owner | undefined> {
  try {
    const owner: Owner = { pid: process.pid, host: hostname(), ino: (await stat(lockPath)).ino };
    const temp = `${lockPath}.owner.${process.pid}.tmp`;
    await writeFile(temp, `${JSON.stringify(owner)}\n`, { mode: 0o600 });
    await rename(temp, `${lockPath}.owner`);
    return owner;
  } catch {
    return undefined;
  }
}

async function disown(lockPath: string, owner: Owner): Promise<void> {
  const now = await readOwner(lockPath);
  if (now && now.pid === owner.pid && now.ino === owner.ino) await rm(`${lockPath}.owner`, { force: true }).catch(() => undefined);
}

async function readOwner(lockPath: string): Promise<Owner | undefined> {
  try {
    const parsed = JSON.parse(await readFile(`${lockPath}.owner`, 'utf8')) as Partial<Owner>;
    if (typeof parsed.pid !== 'number' || typeof parsed.host !== 'string' || typeof parsed.ino !== 'number') return undefined;
    return parsed as Owner;
  } catch {
    return undefined;
  }
}

/**
 * Removes the lock when its owner file names a process of this machine that is gone, and the lock
 * directory is still the one that owner made (same inode, checked again right before removing).
 */
async function takeOverIfHolderGone(lockPath: string): Promise<void> {
  const owner = await readOwner(lockPath);
  if (!owner || owner.host !== hostname() || owner.pid === process.pid || running(owner.pid)) return;
  const { rmdirSync, statSync } = await import('node:fs');
  try {
    if (statSync(lockPath).ino !== owner.ino) return;
    rmdirSync(lockPath);
  } catch {
    return;
  }
  await disown(lockPath, owner);
}

/** Signal 0 asks the kernel whether the pid exists; EPERM means it does (another user's). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  const { setTimeout: sleep } = await import('node:timers/promises');
  try {
    await sleep(ms, undefined, signal ? { signal } : undefined);
  } catch {
    throw signal?.reason instanceof InterruptedError ? signal.reason : new InterruptedError();
  }
}
