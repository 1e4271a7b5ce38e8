/**
 * The Context every command receives, and the factory that builds it (gh's `cmdutil.Factory`):
 * streams, environment, clock and signal are fixed at start; globals are resolved once, on first
 * use; credentials, the authenticated session and the API client are built lazily, so `--help`,
 * `--version`, `completion` and `sandbox` never read the config or the keychain.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { UsageError } from './errors.js';
import { canPrompt, type Clock, type Env, type Io } from './io/io.js';
import { OUTPUT_FORMATS, type OutputFormat, printsDocuments } from './formats.js';
import type { ApiClient } from './client/client.js';
import type { McpServerParts, ServeOptions } from './context/mcp-server.js';
import type { AuthGlobals, Credentials } from './auth/credentials.js';
import type { Settings } from './settings.js';
import type { Session } from './auth/session.js';
import type { Browser } from './io/browser.js';
import type { Output, OutputShape } from './io/formats.js';
import type { Prompter } from './io/prompter.js';
import type { Progress, ProgressOptions } from './io/progress.js';
import type { McpConnection } from './mcp/client.js';
import type { Network } from './http/network.js';
import { suggest } from './io/text.js';
import { createDeadline, type Deadline, parseDuration } from './context/deadline.js';

const DEFAULT_HTTP_TIMEOUT_S = 30;

/** Where a global's value came from: the command line, the environment, the person's settings, or rsi's default. */
export type Source = 'flag' | 'env' | 'settings' | 'default';

/** Options every command understands, resolved once from flags and environment. */
export interface GlobalOptions extends AuthGlobals {
  profile: string;
  /** Where `profile` came from (a hint carries `--profile` only when the command line chose it). */
  profileSource: Source;
  /** From --base-url or RSI_BASE_URL; undefined means "the profile's saved one". */
  baseUrl: string | undefined;
  /** Where `baseUrl` came from; undefined with it. */
  baseUrlSource: 'flag' | 'env' | undefined;
  /** --json was given (one JSON document on stdout). */
  json: boolean;
  /** The explicit --format, else derived: json if --json, table on a TTY, tsv otherwise. */
  format: OutputFormat;
  debug: boolean;
  /** Per-request timeout in milliseconds. */
  timeoutMs: number;
  /** `--timeout` / RSI_TIMEOUT: the whole command's wall-clock bound in ms (0 = none); undefined when not given. */
  commandTimeoutMs: number | undefined;
  /** `--jq <expr>`, compiled before any request (commands/shared/scripting.ts). */
  jq?: string | undefined;
  /** `--fields a,b`: members/columns to keep, in order; checked against the command's list. */
  fields?: string[] | undefined;
  /** --time, RSI_TIME, the `time` setting: how tables show moments. */
  time: 'relative' | 'absolute';
  /** --wide: tables keep full ids and every column. */
  wide: boolean;
  /** --header: tsv starts with a header row (csv always does). */
  header: boolean;
}

/**
 * What the composition root hands every command. Heavy parts (credentials, http, client) are built
 * only when a command asks for them, so `--help` and `--version` stay fast.
 */
export interface Context {
  io: Io;
  env: Env;
  clock: Clock;
  /** Aborted on SIGINT/SIGTERM, and when `--timeout` runs out (`deadline`); every request and wait passes it on. */
  signal: AbortSignal;
  /** The command's one wall-clock bound (src/context/deadline.ts): `--timeout`, or a watch's default. */
  deadline: Deadline;
  version: string;
  /**
   * Sets V8 flags for the rest of the process (a batch favours memory: src/commands/shared/batch.ts)
   * where the command is the process (main() on the process's own streams); in a caller's process
   * (tests, an embedder) it does nothing: the settings are the caller's. main() then knows the run
   * changed them (`v8FlagsChanged`), so no code cache is made under them.
   */
  setV8Flags(flags: string): void;
  globals(): GlobalOptions;
  /**
   * Builds the run's one output, once, after the global flags are checked (program.ts, before the
   * action): the streams, the format and its record, time and width, and the shape `--fields`/`--jq`
   * chose (src/commands/shared/scripting.ts). A second call is a mistake and throws.
   */
  prepareOutput(shape?: OutputShape): Promise<Output>;
  /** The run's one output (src/io/formats.ts `Output`), which every printer is handed. */
  output(): Output;
  /** The person's `rsi config` settings; empty until `loadSettings` ran (before every action). */
  settings(): Settings;
  loadSettings(): Promise<void>;
  /**
   * The process's one network (src/http/network.ts): proxies, the per-request deadline, bounded
   * bodies, trust, the `--debug` trace. Every request goes out on it — API, OAuth, doctor's probes,
   * MCP — and each of those is handed it; the Context alone makes and closes it.
   */
  network(): Promise<Network>;
  /** The profile, base URL, stores and token source in force: resolved in `auth/credentials.ts`. */
  credentials(): Promise<Credentials>;
  session(): Promise<Session>;
  client(): Promise<ApiClient>;
  /** Asks the person at the terminal (callers check `canPrompt` first); one per run. */
  prompter(): Promise<Prompter>;
  /** A progress line on stderr (a live line on a terminal); a new one per call. */
  progress(options?: ProgressOptions): Promise<Progress>;
  /** Opens URLs in the person's browser, under the URL policy for what the service sent. */
  browser(): Promise<Browser>;
  /**
   * Opens a session with the service's MCP server (`rsi mcp …`, `scoreboard`, `--from-brief`); a new
   * one per call, which the caller closes.
   */
  mcp(): Promise<McpConnection>;
  /**
   * `rsi mcp serve`'s composition (src/context/mcp-server.ts): what the server is handed (a client
   * and an MCP session built on first use from credentials read afresh, the sign-ins now, the URL
   * policy, the log) and the closing of what it opened.
   */
  mcpServer(options: ServeOptions): Promise<McpServerParts>;
  /** Releases what was built (the network's connections); safe to call when nothing was. */
  close(): Promise<void>;
  /** Work `close()` does first (waiting for the pager the person is reading). */
  onClose(fn: () => Promise<void>): void;
}

export interface ContextDeps {
  io: Io;
  env: Env;
  signal: AbortSignal;
  version: string;
  /** `Context.setV8Flags`; without it, that does nothing. */
  setV8Flags?: ((flags: string) => void) | undefined;
  clock?: Clock;
  /** The parsed global flags; read on the first `globals()` call, after commander has parsed. */
  flags: () => Record<string, unknown>;
}

export function createContext(deps: ContextDeps): Context {
  const { io, env, version } = deps;
  const clock = deps.clock ?? systemClock;
  const deadline = createDeadline(deps.signal, clock);
  const signal = deadline.signal;
  let globals: GlobalOptions | undefined;
  let network: Promise<Network> | undefined;
  let credentials: Promise<Credentials> | undefined;
  let session: Promise<Session> | undefined;
  let client: Promise<ApiClient> | undefined;
  let prompter: Promise<Prompter> | undefined;
  let output: Output | undefined;
  let settings: Settings = {};
  const closers: Array<() => Promise<void>> = [];
  /** A yes/no question for a person at the terminal (default no), or undefined when nobody can answer. */
  const asker = () =>
    canPrompt(io) && env.RSI_NO_PROMPT !== '1' && settings.prompts !== 'off'
      ? async (question: string) => (await ctx.prompter()).confirm(question, { default: false })
      : undefined;
  const ctx: Context = {
    io,
    env,
    clock,
    signal,
    deadline,
    version,
    setV8Flags: (flags) => deps.setV8Flags?.(flags),
    globals: () => {
      globals ??= resolveGlobals(deps.flags(), env, io, settings);
      return globals;
    },
    prepareOutput: async (shape = {}) => {
      if (output) throw new Error('the output of a run is built once');
      const { format, time, wide, header } = ctx.globals();
      const { makeOutput } = await import('./io/formats.js');
      output = makeOutput(io, { format, time, wide, header, now: () => clock.now() }, shape);
      return output;
    },
    output: () => {
      if (!output) throw new Error('ctx.output() before the output was built (ctx.prepareOutput, before the action)');
      return output;
    },
    settings: () => settings,
    loadSettings: async () => {
      settings = await (await import('./auth/credentials.js')).readSettings(env);
    },
    network: () => {
      network ??= import('./http/network.js').then((m) => {
        const { timeoutMs, debug } = ctx.globals();
        return new m.Network({ env, timeoutMs, trace: debug ? io.stderr : undefined, secrets: io.secrets });
      });
      return network;
    },
    credentials: () => {
      credentials ??= Promise.all([ctx.network(), import('./auth/credentials.js')]).then(([net, m]) =>
        m.resolveCredentials({ globals: ctx.globals(), env, io, clock, signal, version, network: net, confirm: asker() }),
      );
      return credentials;
    },
    session: () => {
      session ??= Promise.all([ctx.credentials(), ctx.network(), import('./auth/session.js')]).then(([creds, net, m]) =>
        m.openSession(creds, { globals: ctx.globals(), io, clock, network: net }),
      );
      return session;
    },
    client: () => {
      client ??= Promise.all([ctx.session(), import('./client/client.js')]).then(([s, m]) => new m.ApiClient(s.http));
      return client;
    },
    prompter: () => {
      prompter ??= import('./io/prompter.js').then((m) => m.createPrompter(io, signal));
      return prompter;
    },
    progress: async (options = {}) => (await import('./io/progress.js')).createProgress(io, { signal, ...options }),
    browser: async () => (await import('./io/browser.js')).createBrowser(env, (line) => void io.stderr.write(`${line}\n`)),
    mcp: () => openMcp(ctx),
    mcpServer: async (options) =>
      (await import('./context/mcp-server.js')).composeMcpServer({ ...ctx, openMcp: (fresh) => openMcp(ctx, fresh) }, options),
    onClose: (fn) => void closers.push(fn),
    close: async () => {
      deadline.dispose();
      for (const fn of closers.splice(0)) await fn().catch(() => undefined);
      if (session) await session.then((s) => s.http.close()).catch(() => undefined);
      if (network) await network.then((n) => n.close()).catch(() => undefined);
    },
  };
  return ctx;
}

/**
 * The MCP session behind `ctx.mcp()`: the MCP sign-in (or RSI_MCP_TOKEN) on the Context's
 * network. `rsi mcp serve` passes credentials it read afresh (a sign-in made while it serves).
 */
export async function openMcp(ctx: Context, fresh?: Credentials): Promise<McpConnection> {
  const [creds, network, { connectMcp }, { profileWords }] = await Promise.all([
    fresh ?? ctx.credentials(),
    ctx.network(),
    import('./mcp/client.js'),
    import('./auth/credentials.js'),
  ]);
  const mcp = await creds.tokenProvider('mcp');
  return connectMcp({
    url: mcp.url,
    auth: mcp,
    network,
    userAgent: creds.userAgent,
    version: ctx.version,
    signal: ctx.signal,
    notSignedInHint:
      mcp.source === 'RSI_MCP_TOKEN'
        ? 'RSI_MCP_TOKEN was refused: set a valid MCP token, or unset it and run `rsi login --resource mcp`'
        : `run ${suggest(['rsi', ...profileWords(creds.profileName), 'login', '--resource', 'mcp'])}`,
  });
}

/** Resolves the global flags against the environment. Throws UsageError for bad values. */
export function resolveGlobals(opts: Record<string, unknown>, env: Env, io: Io, settings: Settings = {}): GlobalOptions {
  const jq = typeof opts.jq === 'string' ? opts.jq : undefined;
  // `--jq` prints JSON (like gh's): it implies --json, and ndjson means "per line".
  const json = opts.json === true || (jq !== undefined && opts.format === undefined);
  let fields: string[] | undefined;
  if (typeof opts.fields === 'string') {
    // A name, or a dotted path from one into its members (`scores.composite.score`): a listed name
    // is matched in any case (src/commands/shared/scripting.ts), a member the spec does not list
    // and the members below a name as the service spells them.
    fields = [...new Set(opts.fields.split(',').map((f) => f.trim()))];
    if (fields.some((f) => !/^[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/.test(f))) {
      throw new UsageError(
        `--fields takes comma-separated names such as name,id or dotted paths such as scores.composite.score (got "${opts.fields}")`,
      );
    }
  }
  let format: OutputFormat;
  if (typeof opts.format === 'string') {
    if (!(OUTPUT_FORMATS as readonly string[]).includes(opts.format)) {
      throw new UsageError(`--format must be one of ${OUTPUT_FORMATS.join(', ')} (got "${opts.format}")`);
    }
    format = opts.format as OutputFormat;
    if (json && format !== 'json') throw new UsageError(`--json cannot be combined with --format ${format}`);
  } else {
    format = json ? 'json' : (settings.format ?? (io.stdoutIsTTY ? 'table' : 'tsv'));
  }
  if (jq !== undefined && !printsDocuments(format)) throw new UsageError(`--jq prints JSON: it cannot be combined with --format ${format}`);
  // The first that says something wins: --profile, RSI_PROFILE, the `profile` setting, `default`.
  const [profile, profileSource] = firstSaid<Source>(
    [typeof opts.profile === 'string' ? opts.profile : undefined, 'flag'],
    [typeof opts.profile === 'string' ? undefined : env.RSI_PROFILE, 'env'],
    [settings.profile, 'settings'],
    ['default', 'default'],
  ) as [string, Source];
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(profile)) {
    throw new UsageError(`invalid profile name "${profile}": use letters, digits, ".", "_" or "-"`);
  }
  const [baseUrl, baseUrlSource] = firstSaid<'flag' | 'env'>(
    [typeof opts.baseUrl === 'string' ? opts.baseUrl : undefined, 'flag'],
    [typeof opts.baseUrl === 'string' ? undefined : env.RSI_BASE_URL, 'env'],
  );
  const rawTimeout = typeof opts.httpTimeout === 'string' ? opts.httpTimeout : env.RSI_HTTP_TIMEOUT;
  let timeoutS = DEFAULT_HTTP_TIMEOUT_S;
  if (rawTimeout !== undefined && rawTimeout !== '') {
    timeoutS = Number(rawTimeout);
    if (!Number.isFinite(timeoutS) || timeoutS <= 0 || timeoutS > 3600) {
      throw new UsageError(`--http-timeout must be a number of seconds between 0 and 3600 (got "${rawTimeout}")`);
    }
  }
  const rawCommandTimeout = typeof opts.timeout === 'string' ? opts.timeout : env.RSI_TIMEOUT || undefined;
  const commandTimeoutMs =
    rawCommandTimeout === undefined
      ? undefined
      : parseDuration(typeof opts.timeout === 'string' ? '--timeout' : 'RSI_TIMEOUT', rawCommandTimeout);
  const time = (typeof opts.time === 'string' ? opts.time : env.RSI_TIME) || settings.time || 'relative';
  if (time !== 'relative' && time !== 'absolute') {
    throw new UsageError(`--time must be relative or absolute (got "${time}")`);
  }
  return {
    profile,
    profileSource,
    baseUrl,
    baseUrlSource,
    json,
    format,
    debug: opts.debug === true || env.RSI_DEBUG === '1',
    timeoutMs: Math.round(timeoutS * 1000),
    commandTimeoutMs,
    jq,
    fields,
    time,
    wide: opts.wide === true,
    header: opts.header === true,
  };
}

/** The first non-empty value and where it came from (an empty `--profile ''` says nothing, as an empty variable). */
function firstSaid<S extends string>(...candidates: ReadonlyArray<readonly [string | undefined, S]>): [string | undefined, S | undefined] {
  for (const [value, source] of candidates) if (value) return [value, source];
  return [undefined, undefined];
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => delay(ms, undefined, signal ? { signal } : undefined),
};
