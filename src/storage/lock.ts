/**
 * Inter-process locks in the config folder (proper-lockfile: an atomic `mkdir`, kept fresh while
 * held, taken over when its holder has crashed). Two uses: the short store lock around every
 * read-modify-write of a file all profiles share (credentials.json, config.json), and the per-profile
 * refresh lock held across a refresh's network call.
 */
import { CredentialStoreError, InterruptedError } from '../errors.js';

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
    const release = await lock(lockPath, {
      lockfilePath: lockPath,
      realpath: false,
      stale: options.staleMs,
      update: Math.max(1000, Math.floor(options.staleMs / 4)),
      // About a minute of patience in all: the holder either finishes or goes stale long before.
      retries: { retries: 300, minTimeout: 10, maxTimeout: 250, factor: 1.3 },
      // Our writes are atomic renames: a lock found compromised (its mtime was reset by a clock
      // jump or a slow disk) must not crash the process from a timer; the write still completes.
      onCompromised: () => undefined,
    });
    return async () => {
      await release().catch(() => undefined);
    };
  } catch (error) {
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
