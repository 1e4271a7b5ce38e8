/**
 * `rsi __update-check`, run detached by notice.ts at most once a day, for a release install only:
 * asks npm's registry for the package's dist-tags (GET <registry>/-/package/<name>/dist-tags:
 * nothing is sent but the package name) and records `latest` in rsi's cache folder for a later run
 * to show. The registry is the one npm would use (registry.ts: environment, then the user's and the
 * global npmrc); proxies are honoured as for every other request. One connection attempt within
 * BUDGET_MS, and the process that runs it is ended at that budget whatever the network does
 * (src/main.ts). Prints nothing, whatever happens.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Env } from '../io/io.js';
import { Network } from '../http/network.js';
import { installation, type Installation } from '../io/installation.js';
import { PACKAGE_NAME } from '../release.js';
import { cacheDir, readState, writeState } from '../storage/state.js';
import { distTagsUrl, type NpmHost, currentNpmHost, npmRegistry } from './registry.js';
import { BUILT_WITH_NOTIFIER, STATE_FILE, type UpdateState } from './notice.js';

/** The check's whole wall-clock budget: long enough for a slow registry, short enough that nothing lingers. */
export const BUDGET_MS = 5_000;

export interface CheckOptions {
  env: Env;
  now: () => number;
  /** Defaults: this installation, the real home and npm host. */
  install?: Installation;
  home?: string;
  npmHost?: NpmHost;
  packageName?: string;
}

/** Whether a request was sent (for tests): never for a checkout, a linked clone or a renamed build. */
export async function runUpdateCheck(options: CheckOptions): Promise<boolean> {
  const name = options.packageName ?? PACKAGE_NAME;
  const install = options.install ?? installation(name);
  if (!install.release || !BUILT_WITH_NOTIFIER) return false;
  const home = options.home ?? homedir();
  const registry = npmRegistry(options.env, name, options.npmHost ?? currentNpmHost(home));
  const url = distTagsUrl(registry.url, name);
  if (!url) return false;
  const network = new Network({ env: options.env, timeoutMs: BUDGET_MS });
  try {
    // One GET, one deadline: the network's own retries are for the service, not for a courtesy check.
    const res = await network.send({
      method: 'GET',
      url,
      headers: { accept: 'application/json' },
      maxBytes: 64 * 1024,
      signal: AbortSignal.timeout(BUDGET_MS),
    });
    if (res.status !== 200) return true;
    const latest = (JSON.parse(res.body.toString('utf8')) as { latest?: unknown }).latest;
    if (typeof latest !== 'string' || !/^\d+\.\d+\.\d+$/.test(latest)) return true;
    const dir = cacheDir(options.env, process.platform, home);
    const state = readState<UpdateState>(join(dir, STATE_FILE)) ?? {};
    await writeState(dir, STATE_FILE, { ...state, checkedAt: state.checkedAt ?? options.now(), latest });
  } catch {
    // No answer today, or a cache folder rsi may not use: the next check is tomorrow.
  } finally {
    await network.close();
  }
  return true;
}
