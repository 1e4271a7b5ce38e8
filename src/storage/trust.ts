/**
 * Trust nothing on disk by accident, as ssh does with ~/.ssh: the config folder says where tokens
 * are sent (the token endpoint) and the credentials file holds them, so another local user who can
 * write either, or who owns them, could redirect the refresh token to a server of theirs. A folder
 * or file that others can write, that another user owns, or a credentials path that is a symbolic
 * link, is refused with the command that fixes it.
 */
import { lstat, stat } from './fs.js';
import { ConfigError } from '../errors.js';
import { shellCommand } from '../io/text.js';

export interface TrustHost {
  platform: NodeJS.Platform;
  /** The user rsi runs as; undefined where the platform has no uids (Windows). */
  uid: number | undefined;
  /** For the `chown` hint. */
  userName: string | undefined;
}

export function currentHost(): TrustHost {
  return {
    platform: process.platform,
    uid: typeof process.getuid === 'function' ? process.getuid() : undefined,
    userName: process.env.USER ?? process.env.LOGNAME,
  };
}

export type TrustKind = 'folder' | 'file' | 'secret-file';

export interface TrustIssue {
  path: string;
  problem: string;
  /** The shell command that fixes it. */
  fix: string;
}

/**
 * The problem with `path`, if any. Absent paths are fine (nothing to trust yet). A `secret-file`
 * (credentials.json) must also not be a symbolic link: reading through one would hand the tokens'
 * location to whoever controls the link. Windows has no POSIX modes or uids: nothing to check.
 */
export async function trustIssue(path: string, kind: TrustKind, host: TrustHost = currentHost()): Promise<TrustIssue | undefined> {
  if (host.platform === 'win32') return undefined;
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    const link = await lstat(path);
    if (link.isSymbolicLink()) {
      if (kind === 'secret-file')
        return {
          path,
          problem: 'is a symbolic link (tokens are never read through one)',
          fix: `${shellCommand(['rm', path])}, then sign in again`,
        };
      // A link another user made (in a shared folder, say) is theirs to repoint at will.
      if (foreign(link.uid, host))
        return { path, problem: `is a symbolic link made by another user (uid ${link.uid})`, fix: shellCommand(['rm', path]) };
      info = await stat(path);
    } else info = link;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new ConfigError(`cannot check ${path}: ${(error as Error).message}`, { cause: error });
  }
  if (foreign(info.uid, host)) {
    return {
      path,
      problem: `is owned by another user (uid ${info.uid})`,
      fix: shellCommand(['chown', String(host.userName ?? host.uid), path]),
    };
  }
  if ((info.mode & 0o022) !== 0) {
    return {
      path,
      problem: `can be written by other users (mode ${(info.mode & 0o777).toString(8).padStart(3, '0')})`,
      fix: shellCommand(['chmod', kind === 'folder' ? '700' : '600', path]),
    };
  }
  return undefined;
}

/** Root may own it (it can do anything anyway); any other user may not, as with ssh. */
function foreign(uid: number, host: TrustHost): boolean {
  return host.uid !== undefined && uid !== host.uid && uid !== 0;
}

/** Throws a ConfigError naming the path and the fix when `path` must not be trusted. */
export async function assertTrusted(path: string, kind: TrustKind, host?: TrustHost): Promise<void> {
  const issue = await trustIssue(path, kind, host);
  if (issue) throw trustError(issue);
}

export function trustError(issue: TrustIssue): ConfigError {
  return new ConfigError(`refusing to use ${issue.path}: it ${issue.problem}; fix: ${issue.fix}`, {
    hint: 'another local user could redirect or read your sign-in; `rsi doctor` lists every such problem',
  });
}
