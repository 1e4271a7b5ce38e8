/**
 * `rsi __update-check`, run detached by notice.ts at most once a day: asks the npm registry for the
 * package's `latest` dist-tag (GET <registry>/<name>/latest: nothing is sent but the package name)
 * with a short deadline, and records it in the cache file for a later run to show. The registry
 * is npm's own setting (`npm_config_registry`, default https://registry.npmjs.org/); proxies are
 * honoured as for every other request. Prints nothing, whatever happens.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Env } from '../context.js';
import { Network } from '../http/network.js';
import { stateFile, type UpdateState, writeAtomically } from './notice.js';

/** Long enough for a slow registry, short enough that a hung one does not keep a process around. */
const DEADLINE_MS = 5_000;

export function registryUrl(env: Env, name: string): URL | undefined {
  const base = env.npm_config_registry || env.NPM_CONFIG_REGISTRY || 'https://registry.npmjs.org/';
  try {
    const url = new URL(`${encodeURIComponent(name).replace('%40', '@')}/latest`, base.endsWith('/') ? base : `${base}/`);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}

export async function runUpdateCheck(env: Env, name: string, now: () => number): Promise<void> {
  const url = registryUrl(env, name);
  if (!url) return;
  const network = new Network({ env, timeoutMs: DEADLINE_MS });
  try {
    const res = await network.send({ method: 'GET', url, headers: { accept: 'application/json' }, maxBytes: 256 * 1024 });
    if (res.status !== 200) return;
    const latest = (JSON.parse(res.body.toString('utf8')) as { version?: unknown }).version;
    if (typeof latest !== 'string' || !/^\d+\.\d+\.\d+$/.test(latest)) return;
    const file = stateFile(env, process.platform, homedir(), join);
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    let state: UpdateState = {};
    try {
      state = JSON.parse(readFileSync(file, 'utf8')) as UpdateState;
    } catch {
      // Written by the run that started this check; gone or broken, start over.
    }
    writeAtomically(file, { ...state, checkedAt: state.checkedAt ?? now(), latest });
  } catch {
    // No answer today: the next check is tomorrow.
  } finally {
    await network.close();
  }
}
