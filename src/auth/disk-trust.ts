/**
 * What `doctor` asks about the config folder (and rsi's cache folder): every way its folder, config.json or credentials.json
 * could be trusted by accident (the checks live in storage/trust.ts; commands reach storage only
 * through auth).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { configDir, diskTrustIssues } from '../storage/config.js';
import { cacheDir, stateFolderIssue } from '../storage/state.js';
import type { TrustIssue } from '../storage/trust.js';
import type { Env } from '../io/io.js';

export async function configFolderIssues(env: Env): Promise<{ dir: string; issues: TrustIssue[] }> {
  const dir = configDir(env);
  return { dir, issues: await diskTrustIssues(dir) };
}

/**
 * rsi's cache folder (the update check's state) and the compile cache in it (bin/rsi.js, which
 * turns the cache off when it fails) and the first problem, if any: the config folder's rules.
 */
export async function cacheFolderIssue(env: Env): Promise<{ dir: string; issue: TrustIssue | undefined }> {
  const dir = cacheDir(env, process.platform, env.HOME || homedir());
  return { dir, issue: (await stateFolderIssue(dir)) ?? (await stateFolderIssue(join(dir, 'compile'))) };
}
