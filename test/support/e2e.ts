/**
 * The end-to-end set-up most files share: one `rsi sandbox` per test file, a token from the real
 * OAuth flow, a temporary config folder, and `rsi(…)` running rsi against them. Both run in this
 * test process (`main()`, test/support/inproc.ts) unless `{ process: true }` asks for real
 * `bin/rsi.js` processes (start-up, what a process loads, signals).
 *
 *   const e2e = useSandbox(['--fault', 'analyses-504']);
 *   it('…', async () => { const r = await e2e.rsi(['projects', 'list']); … });
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import * as processes from './cli.js';
import type { CliResult } from './cli.js';
import * as inProcess from './inproc.js';
import type { InProcessSandbox } from './inproc.js';
import { obtainTokens } from './oauth.js';
import * as sandboxProcesses from './sandbox.js';

export interface RsiOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  /** Another access token to run as (default: the file's all-scopes token). */
  as?: string;
  timeoutMs?: number;
}

export interface E2e {
  readonly sandbox: InProcessSandbox;
  readonly url: string;
  /** An access token with all three scopes. */
  readonly token: string;
  readonly configDir: string;
  /** bin/rsi.js with RSI_TOKEN, RSI_BASE_URL and RSI_CONFIG_DIR set for this sandbox. */
  rsi(args: readonly string[], options?: RsiOptions): Promise<CliResult>;
  /** The same as a real `bin/rsi.js` process, for what needs one (what the process loads, NODE_OPTIONS). */
  rsiProcess(args: readonly string[], options?: RsiOptions): Promise<CliResult>;
  /** A direct API call (no rsi), for arranging state and checking what the service holds. */
  api(method: string, path: string, body?: unknown, token?: string): Promise<Response>;
  /** A new project through the API; with `setup` (default) its scoring setup finished by the setup form. */
  newProject(name: string, options?: { setup?: boolean }): Promise<string>;
  /** A token holding only the given scopes (or for another resource). */
  tokenFor(scopes: readonly string[], resource?: string): Promise<string>;
}

export function useSandbox(args: readonly string[] = [], options: { quiet?: boolean; process?: boolean } = {}): E2e {
  const startSandbox = options.process ? sandboxProcesses.startSandbox : inProcess.startSandbox;
  const runCli = options.process ? processes.runCli : inProcess.runCli;
  let sandbox: InProcessSandbox | undefined;
  let token = '';
  let configDir = '';
  beforeAll(async () => {
    sandbox = await startSandbox(['--auto-approve', ...(options.quiet === false ? [] : ['--quiet']), ...args]);
    token = (await obtainTokens(sandbox.url)).access_token;
    configDir = mkdtempSync(join(tmpdir(), 'rsi-e2e-'));
  });
  afterAll(async () => {
    await sandbox?.stop();
    if (configDir) rmSync(configDir, { recursive: true, force: true });
  });
  const ready = (): InProcessSandbox => {
    if (!sandbox) throw new Error('useSandbox: the sandbox is not started yet (use it inside a test or a hook)');
    return sandbox;
  };
  const runOptions = (o: RsiOptions): processes.RunCliOptions => ({
    env: { RSI_TOKEN: o.as ?? token, RSI_BASE_URL: ready().url, RSI_CONFIG_DIR: configDir, ...o.env },
    input: o.input,
    timeoutMs: o.timeoutMs,
  });
  const e2e: E2e = {
    get sandbox() {
      return ready();
    },
    get url() {
      return ready().url;
    },
    get token() {
      return token;
    },
    get configDir() {
      return configDir;
    },
    rsi: (argv, o = {}) => runCli(argv, runOptions(o)),
    rsiProcess: (argv, o = {}) => processes.runCli(argv, runOptions(o)),
    api: (method, path, body, as) =>
      fetch(`${ready().url}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${as ?? token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    newProject: async (name, o = {}) => {
      const res = await e2e.api('POST', '/projects', { name });
      if (res.status !== 201) throw new Error(`create project: ${res.status} ${await res.text()}`);
      const { id } = (await res.json()) as { id: string };
      if (o.setup ?? true) {
        const form = await fetch(`${ready().url}/projects/${id}/setup`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: '',
          redirect: 'manual',
        });
        if (form.status >= 400) throw new Error(`setup form: ${form.status}`);
      }
      return id;
    },
    tokenFor: async (scopes, resource) => (await obtainTokens(ready().url, { scopes, ...(resource ? { resource } : {}) })).access_token,
  };
  return e2e;
}
