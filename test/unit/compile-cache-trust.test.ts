// bin/rsi.js checks the compile cache's folders before the bundle loads, so it cannot import
// trustIssue (src/storage/trust.ts) and restates its folder rules: this holds the two to the same
// verdicts, folder by folder (the real processes are in test/journeys/signin-moves.test.ts).
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { currentHost, trustIssue } from '../../src/storage/trust.js';

/** bin/rsi.js's `folderProblem`, taken from its source as it ships. */
function binFolderProblem(): (fsModule: typeof fs, path: string) => string | undefined {
  const source = fs.readFileSync(new URL('../../bin/rsi.js', import.meta.url), 'utf8');
  const body = /\nfunction folderProblem\(fs, path\) \{\n[\s\S]*?\n\}\n/.exec(source)?.[0];
  if (!body) throw new Error('bin/rsi.js has no folderProblem(fs, path)');
  return new Function('process', `${body}; return folderProblem;`)(process);
}

const root = fs.mkdtempSync(join(tmpdir(), 'rsi-cache-trust-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const asRoot = process.getuid?.() === 0;

describe.skipIf(process.platform === 'win32')('the compile cache folder check and trustIssue agree', () => {
  const cases: Array<[string, (path: string) => void]> = [
    ['a folder of the user’s, 0700', (p) => fs.mkdirSync(p, { mode: 0o700 })],
    ['a folder of the user’s, 0755', (p) => (fs.mkdirSync(p), fs.chmodSync(p, 0o755))],
    ['a folder others can write (0777)', (p) => (fs.mkdirSync(p), fs.chmodSync(p, 0o777))],
    ['a folder the group can write (0770)', (p) => (fs.mkdirSync(p), fs.chmodSync(p, 0o770))],
    ['a link of the user’s to a folder of theirs', (p) => (fs.mkdirSync(`${p}.real`, { mode: 0o700 }), fs.symlinkSync(`${p}.real`, p))],
    ...(asRoot
      ? ([
          ['a folder another user owns', (p) => (fs.mkdirSync(p, { mode: 0o700 }), fs.chownSync(p, 4242, 4242))],
          [
            'a link another user made',
            (p) => (fs.mkdirSync(`${p}.real`, { mode: 0o700 }), fs.symlinkSync(`${p}.real`, p), fs.lchownSync(p, 4242, 4242)),
          ],
        ] as Array<[string, (path: string) => void]>)
      : []),
  ];
  let n = 0;
  it.each(cases)('%s', async (_what, make) => {
    const path = join(root, `case-${++n}`);
    make(path);
    const issue = await trustIssue(path, 'folder', currentHost());
    const problem = binFolderProblem()(fs, path);
    expect(problem === undefined, `trustIssue: ${issue?.problem}; bin/rsi.js: ${problem}`).toBe(issue === undefined);
    if (issue) expect(problem).toContain(issue.problem);
  });
});
