/**
 * What `doctor` asks about the config folder: every way its folder, config.json or credentials.json
 * could be trusted by accident (the checks live in storage/trust.ts; commands reach storage only
 * through auth).
 */
import { configDir, diskTrustIssues } from '../storage/config.js';
import type { TrustIssue } from '../storage/trust.js';
import type { Env } from './credentials.js';

export type { TrustIssue };

export async function configFolderIssues(env: Env): Promise<{ dir: string; issues: TrustIssue[] }> {
  const dir = configDir(env);
  return { dir, issues: await diskTrustIssues(dir) };
}
