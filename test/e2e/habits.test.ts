// Habits of gh, kubectl and az in a real process: one line on stderr naming rsi's equivalent,
// nothing on stdout, exit 2 (test/unit/habits.test.ts has the whole table).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/inproc.js';

const dir = mkdtempSync(join(tmpdir(), 'rsi-habits-'));
const env = { RSI_CONFIG_DIR: dir };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('habits in a real process', () => {
  it.each([
    [['--profile', 'ttl', 'auth', 'login'], "rsi: unknown command 'auth login' (gh's); in rsi: rsi --profile ttl login\n"],
    [['version'], "rsi: unknown command 'version' (gh's); in rsi: rsi --version\n"],
    [['projects', 'list', '-o', 'json'], "rsi: unknown option '-o' (kubectl's); in rsi: rsi projects list --json\n"],
    [['signals', 'P', '--watch'], "rsi: unknown option '--watch' (kubectl's); in rsi: rsi status P --watch\n"],
    [
      ['status', 'My', 'first', 'project'],
      "rsi: too many arguments for 'status'. Expected 1 argument but got 3: My, first, project.\n" +
        'hint: a name with spaces is one argument: quote it, as in rsi status "My first project"\n',
    ],
  ])('rsi %j', async (argv, stderr) => {
    const r = await runCli(argv, { env });
    expect(r.stderr).toBe(stderr);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(2);
  });
});
