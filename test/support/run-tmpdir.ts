/**
 * vitest's global setup: the whole run's temporary files in one folder, removed when the run ends.
 * TMPDIR points there before the workers start, so every mkdtemp(tmpdir()) of a test, and every
 * rsi, tmux, shell or browser a test starts (they inherit it), writes under it; a test that forgets
 * its own cleanup leaves nothing behind (a run used to leave about 300 folders in /tmp). What must
 * outlast a run (rsi's compile cache for the tests, test/support/cli.ts) stays in the outer
 * temporary folder, named by RSI_TEST_OUTER_TMPDIR.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const outer = tmpdir();
  const dir = mkdtempSync(join(outer, 'rsi-test-run-'));
  process.env.RSI_TEST_OUTER_TMPDIR = outer;
  process.env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
