/**
 * Non-secret configuration: profiles with their base URL, the authorization server's endpoints and
 * the dynamic client registration. One JSON file, validated on read, written atomically.
 */
import { closeSync, existsSync, fstatSync, fsyncSync, mkdirSync, openSync, renameSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile, chmod } from './fs.js';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import envPaths from 'env-paths';
import * as z from 'zod/mini';
import { ConfigError, ioErrorFrom } from '../errors.js';
import { settingSchemas, type Settings } from '../settings.js';
import { withLock } from './lock.js';
import { assertTrusted, trustIssue, type TrustHost, type TrustIssue } from './trust.js';
import { suggest } from '../io/text.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The file's schemas, built on the first read of a config file rather than at import (the settings'
 * own, which build zod's messages too, likewise: src/settings.ts).
 */
const schemas = (() => {
  let built: ReturnType<typeof build> | undefined;
  function build() {
    const { Settings } = settingSchemas();
    const ClientRegistration = z.object({
      clientId: z.string().check(z.minLength(1)),
      redirectUri: z.url(),
      /** The issuer this registration belongs to: never replayed at another. */
      issuer: z.string().check(z.minLength(1)),
      registeredAt: z.string(),
      /** What the registration returned when not `none`; its secret is kept with the tokens. */
      tokenEndpointAuthMethod: z.optional(z.enum(['client_secret_basic', 'client_secret_post'])),
      /** Given with `--client-id` (not registered by rsi): reused as is, never re-registered. */
      preRegistered: z.optional(z.boolean()),
    });

    const AuthServer = z.object({
      issuer: z.string().check(z.minLength(1)),
      token_endpoint: z.url(),
      authorization_endpoint: z.optional(z.url()),
      revocation_endpoint: z.optional(z.url()),
      registration_endpoint: z.optional(z.url()),
    });

    /**
     * The MCP server's own sign-in (`rsi login --resource mcp`): its protected-resource metadata may
     * name another authorization server than the API's, with its own client registration.
     */
    const McpSignIn = z.object({
      /** The resource the tokens are bound to (RFC 8707), as the MCP server's metadata gave it. */
      resource: z.string().check(z.minLength(1)),
      authServer: AuthServer,
      client: z.optional(ClientRegistration),
    });

    const Profile = z.object({
      baseUrl: z.url(),
      authServer: z.optional(AuthServer),
      client: z.optional(ClientRegistration),
      credentialStore: z.optional(z.enum(['keychain', 'file'])),
      mcp: z.optional(McpSignIn),
    });

    const ConfigFile = z.object({
      version: z.literal(1),
      profiles: z.record(z.string(), Profile),
      settings: z.optional(Settings),
    });
    return { ClientRegistration, AuthServer, McpSignIn, Profile, ConfigFile };
  }
  return () => (built ??= build());
})();
type Schemas = ReturnType<typeof schemas>;
export type ClientRegistration = z.infer<Schemas['ClientRegistration']>;
export type AuthServerInfo = z.infer<Schemas['AuthServer']>;
export type McpSignIn = z.infer<Schemas['McpSignIn']>;
export type Profile = z.infer<Schemas['Profile']>;
export type ConfigFile = z.infer<Schemas['ConfigFile']>;

/** What choosing the config folder needs to know about the machine (injected by unit tests). */
export interface ConfigHost {
  platform: NodeJS.Platform;
  exists(path: string): boolean;
  /** The platform's conventional config folder for "rsi" (env-paths, no "-nodejs" suffix): Windows only. */
  conventional(): string;
  /** Moves a file or folder (a rename: the same disk); throws when it cannot. */
  move(from: string, to: string): void;
}

export const currentConfigHost: ConfigHost = {
  platform: process.platform,
  exists: existsSync,
  conventional: () => envPaths('rsi', { suffix: '' }).config,
  move: (from, to) => {
    mkdirSync(dirname(to), { recursive: true, mode: 0o700 });
    renameSync(from, to);
  },
};

/**
 * RSI_CONFIG_DIR, else $XDG_CONFIG_HOME/rsi (an explicit choice, honoured everywhere; a relative
 * value is ignored, as the XDG spec says), else ~/.config/rsi on Linux, macOS and other Unixes
 * (what gh and most CLIs use on macOS too: one path in every doc, and no space to quote), and
 * %APPDATA%\rsi\Config on Windows (where a ~/.config/rsi an earlier version wrote stays in use).
 * macOS used ~/Library/Preferences/rsi before 0.1.0 (a folder Apple keeps for the preferences
 * system's plists): a config found there is moved to ~/.config/rsi on first use, and its keychain
 * entries follow on the next read (formerConfigDirs), so nobody is signed out.
 */
export function configDir(env: Env, host: ConfigHost = currentConfigHost): string {
  if (env.RSI_CONFIG_DIR) return env.RSI_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME)) return join(env.XDG_CONFIG_HOME, 'rsi');
  const home = env.HOME || homedir();
  const dotConfig = join(home, '.config', 'rsi');
  if (host.platform === 'win32') return host.exists(join(dotConfig, 'config.json')) ? dotConfig : host.conventional();
  if (host.platform === 'darwin') return movedFromPreferences(join(home, 'Library', 'Preferences', 'rsi'), dotConfig, host);
  return dotConfig;
}

/** The folders an earlier version used for this one's sign-ins, whose keychain entries move here when read. */
export function formerConfigDirs(env: Env, host: Pick<ConfigHost, 'platform'> = currentConfigHost): string[] {
  if (env.RSI_CONFIG_DIR || (env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME)) || host.platform !== 'darwin') return [];
  return [join(env.HOME || homedir(), 'Library', 'Preferences', 'rsi')];
}

/**
 * macOS: ~/Library/Preferences/rsi's config (and credentials file) moved to ~/.config/rsi, unless
 * the new folder already has a config of its own. A move that fails (another disk, no permission)
 * keeps the old folder in use rather than lose a sign-in.
 */
function movedFromPreferences(old: string, dotConfig: string, host: ConfigHost): string {
  if (host.exists(join(dotConfig, 'config.json')) || !host.exists(join(old, 'config.json'))) return dotConfig;
  try {
    if (!host.exists(dotConfig)) host.move(old, dotConfig);
    else
      for (const name of ['config.json', 'credentials.json'])
        if (host.exists(join(old, name))) host.move(join(old, name), join(dotConfig, name));
    return dotConfig;
  } catch {
    return old;
  }
}

export class ConfigStore {
  readonly file: string;

  constructor(
    readonly dir: string,
    private readonly host?: TrustHost,
  ) {
    this.file = join(dir, 'config.json');
  }

  async read(): Promise<ConfigFile> {
    return this.readAs(() => schemas().ConfigFile);
  }

  /** `schema` is asked for only when there is a file to parse. */
  private async readAs<T>(schema: () => z.ZodMiniType<T>): Promise<T> {
    // The token endpoint comes from here: a file others can change is not ours to trust.
    await assertTrusted(this.dir, 'folder', this.host);
    await assertTrusted(this.file, 'file', this.host);
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, profiles: {} } as T;
      throw new ConfigError(`cannot read ${this.file}: ${(error as Error).message}`, { cause: error });
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw new ConfigError(`${this.file} is not valid JSON`, { hint: `fix or delete the file, then run \`rsi login\`` });
    }
    const parsed = schema().safeParse(data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.join('.') || '(top level)';
      // A bad setting is one `rsi config unset` away (updateSettings reads past it), not a new login.
      const setting = issue?.path[0] === 'settings' && typeof issue.path[1] === 'string' ? issue.path[1] : undefined;
      throw new ConfigError(`${this.file} is not a valid rsi config: ${where}: ${issue?.message ?? 'invalid'}`, {
        hint: setting
          ? `run ${suggest(['rsi', 'config', 'unset', setting])}, or fix it in the file`
          : 'fix or delete the file, then run `rsi login`',
      });
    }
    return parsed.data;
  }

  async profile(name: string): Promise<Profile | undefined> {
    // Own members only: `constructor` or `toString` is no profile (Object.prototype's are inherited).
    return ownValue((await this.read()).profiles, name);
  }

  async settings(): Promise<Settings> {
    return (await this.read()).settings ?? {};
  }

  /** Read-modify-write of the settings under the same store lock as the profiles. */
  async updateSettings(update: (current: Settings) => Settings): Promise<void> {
    await ensureDir(this.dir);
    await withLock(`${this.file}.lock`, { staleMs: STORE_LOCK_STALE_MS, what: 'update the config' }, async () => {
      // Settings as found, valid or not, so `rsi config unset` can repair a bad one.
      const config = (await this.readAs(() =>
        z.extend(schemas().ConfigFile, { settings: z.optional(z.record(z.string(), z.unknown())) }),
      )) as ConfigFile;
      const next = update(config.settings ?? {});
      if (Object.keys(next).length === 0) delete config.settings;
      else config.settings = next;
      await writeAtomic(this.file, `${JSON.stringify(config, null, 2)}\n`, 0o600);
    });
  }

  /**
   * Read-modify-write of one profile under the store lock, so two processes updating different
   * profiles at once never undo each other's write; the file is replaced atomically.
   */
  async updateProfile(name: string, update: (current: Profile | undefined) => Profile | undefined): Promise<void> {
    await ensureDir(this.dir);
    await withLock(`${this.file}.lock`, { staleMs: STORE_LOCK_STALE_MS, what: 'update the config' }, async () => {
      const config = await this.read();
      const next = update(ownValue(config.profiles, name));
      if (next === undefined) delete config.profiles[name];
      else config.profiles[name] = next;
      await writeAtomic(this.file, `${JSON.stringify(config, null, 2)}\n`, 0o600);
    });
  }
}

/** `record[key]` when the record has it as its own member, never a member of Object.prototype. */
export function ownValue<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Every way the config folder could be trusted by accident, for `doctor` to list with its fix. */
export async function diskTrustIssues(dir: string, host?: TrustHost): Promise<TrustIssue[]> {
  const found = await Promise.all([
    trustIssue(dir, 'folder', host),
    trustIssue(join(dir, 'config.json'), 'file', host),
    trustIssue(join(dir, 'credentials.json'), 'secret-file', host),
  ]);
  return found.filter((i): i is TrustIssue => i !== undefined);
}

/** The store lock is held for one read and one write: a holder silent for 10 s has crashed. */
export const STORE_LOCK_STALE_MS = 10_000;

export async function ensureDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw (
      ioErrorFrom(error, `the config folder ${dir}`) ??
      new ConfigError(`cannot create the config folder ${dir}: ${(error as Error).message}`, {
        hint: 'check that the config folder (RSI_CONFIG_DIR) is writable',
        cause: error,
      })
    );
  }
}

/** A file's identity on its volume: what `mv` within the volume keeps and a copy never has. */
export interface FileIdentity {
  /** st_dev and st_ino as decimal text (64-bit values do not fit a JSON number exactly). */
  dev: string;
  ino: string;
}

/**
 * Writes a file by renaming a complete temporary file over it, so readers never see half of it.
 * `content` may depend on the identity the file will have (the temporary file's, which the rename
 * keeps): the credentials file records it, to tell itself from a copy (storage/credentials.ts).
 */
export async function writeAtomic(file: string, content: string | ((identity: FileIdentity) => string), mode: number): Promise<void> {
  const dir = dirname(file);
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    if (typeof content === 'string') await writeFile(tmp, content, { mode });
    else {
      const fd = openSync(tmp, 'wx', mode);
      try {
        const info = fstatSync(fd, { bigint: true });
        writeFileSync(fd, content({ dev: String(info.dev), ino: String(info.ino) }));
        // On disk before the rename: a crash must not leave an empty file where the tokens were.
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
    await chmod(tmp, mode);
    await rename(tmp, file);
  } catch (error) {
    // A full disk leaves a partial temporary file: not ours to keep. The original is untouched.
    await rm(tmp, { force: true }).catch(() => undefined);
    throw (
      ioErrorFrom(error, file) ??
      new ConfigError(`cannot write ${file}: ${(error as Error).message}`, {
        hint: 'check that the config folder (RSI_CONFIG_DIR) is writable',
        cause: error,
      })
    );
  }
}
