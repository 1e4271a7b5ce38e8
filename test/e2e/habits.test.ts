// Every habit of gh, kubectl, az, aws and docker the table knows (src/commands/shared/habits.ts),
// typed as its examples say, against the sandbox: one that works as typed exits 0; any other gets
// one line on stderr, nothing on stdout, exit 2, and the line's `rsi …` command, pasted as printed
// (the shell's words of it), exits 0. The table and this test are one list: a habit without an
// example, or an answer that is not a command, fails here.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HABITS } from '../../src/commands/shared/habits.js';
import type { Example } from '../../src/commands/shared/habit-rules.js';
import { commandWords } from '../../src/io/text.js';
import { FAKE_BROWSER } from '../support/browser.js';
import { useSandbox } from '../support/e2e.js';
import { runCli } from '../support/inproc.js';

// Fast scoring: a followed `status P --watch` after a habit started runs ends within the test.
const e2e = useSandbox(['--time-scale', '5000']);
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The environment an example runs in: the file's token, or a stored sign-in of its own. */
async function envFor(example: Example): Promise<Record<string, string>> {
  const base = { RSI_BASE_URL: e2e.url, BROWSER: FAKE_BROWSER, RSI_NO_UPDATE_NOTIFIER: '1' };
  if (example.env === 'signed-in') {
    const dir = mkdtempSync(join(tmpdir(), 'rsi-habit-'));
    dirs.push(dir);
    const env = { ...base, RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file' };
    const login = await runCli(['login'], { env });
    expect(login.code, login.stderr).toBe(0);
    return env;
  }
  return {
    ...base,
    RSI_TOKEN: e2e.token,
    RSI_CONFIG_DIR: e2e.configDir,
    ...(example.env === 'default-project' ? { RSI_PROJECT: 'KRAS inhibitors' } : {}),
  };
}

/** The command a habit's line names (`…; in rsi: rsi …`), as the words a shell passes. */
function answer(stderr: string): string[] {
  const line = /; in rsi: (rsi .*)$/m.exec(stderr)?.[1];
  expect(line, `a command in the line:\n${stderr}`).toBeDefined();
  const words = commandWords(line!);
  expect(words, line).toBeDefined();
  return words!.slice(1).map((w) => w.word);
}

const examples = HABITS.flatMap((habit) => habit.examples.map((example) => ({ habit, example })));

describe('every habit works as typed or answers with a command that works', () => {
  it('covers at least 30 habits of gh, kubectl, az, aws and docker, each with an example (but the one with no command)', () => {
    expect(HABITS.length).toBeGreaterThanOrEqual(30);
    expect(new Set(HABITS.map((h) => h.from))).toEqual(new Set(['gh', 'kubectl', 'az', 'aws', 'docker']));
    for (const h of HABITS) {
      // Each habit is one of: works as typed, a rewrite to a command, or the one documented exception.
      expect(
        [h.works, h.rewrite, h.none].filter((x) => x !== undefined),
        h.theirs,
      ).toHaveLength(1);
      if (h.none === undefined) expect(h.examples.length, h.theirs).toBeGreaterThan(0);
    }
    expect(HABITS.filter((h) => h.none !== undefined).map((h) => h.theirs)).toEqual(['rsi projects delete PROJECT']);
  });

  it.each(examples.map(({ habit, example }) => [example.typed.join(' '), habit, example] as const))(
    'rsi %s',
    async (_name, habit, example) => {
      const env = await envFor(example);
      const host = new URL(e2e.url).host;
      const typed = example.typed.map((w) => w.replace('$HOST', host));
      const r = await runCli(typed, { env });
      if (habit.works) {
        expect(r.code, r.stderr).toBe(0);
        return;
      }
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n').filter(Boolean), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(new RegExp(`^rsi: unknown (command|option) '[^']+' \\(${habit.from}'s\\); in rsi: rsi `));
      const followed = await runCli(answer(r.stderr), { env });
      expect(followed.code, `${typed.join(' ')} → ${answer(r.stderr).join(' ')}\n${followed.stderr}`).toBe(0);
    },
  );

  it('projects delete says the API has no such operation', async () => {
    const r = await e2e.rsi(['projects', 'delete', 'Anything']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "rsi: unknown command 'projects delete' (gh's); in rsi: no such operation: the service's API cannot delete a project (ask the service's administrators)\n",
    );
  });
});
