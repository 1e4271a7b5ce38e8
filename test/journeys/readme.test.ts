// The README's "A first session" runs literally, in order, in bash under `set -e -o pipefail`: the
// indented lines are taken from README.md as they are, with `rsi` on PATH resolving to this
// checkout, a temporary HOME and config folder, the file credential store and a fake browser.
// Only the port changes, when 8765 is taken on this machine.
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { firstSession } from '../support/readme.js';
import { runBash } from '../support/shell.js';
import { FAKE_BROWSER } from '../support/browser.js';

async function portFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('README: A first session', () => {
  const lines = firstSession();

  it('is there, starts the sandbox on a fixed port, quietly, and finishes setup from the terminal', () => {
    expect(lines[0]).toMatch(/^rsi sandbox --port 8765 --auto-approve --quiet\b.*&/);
    expect(lines.join('\n')).toContain('rsi login --base-url http://127.0.0.1:8765');
    expect(lines.join('\n')).toMatch(/curl .*-X POST .*\/setup"/);
    expect(lines.at(-1)).toMatch(/^rsi opportunities /);
  });

  it('runs literally, line by line, under set -e -o pipefail', async () => {
    const port = (await portFree(8765)) ? 8765 : await freePort();
    const home = mkdtempSync(join(tmpdir(), 'rsi-readme-'));
    const session = lines.join('\n').replaceAll(':8765', `:${port}`).replaceAll('--port 8765', `--port ${port}`);
    // The harness, not the README: stop the background sandbox at the end, and name a failing line.
    const script = `trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
trap 'echo "README line failed: $BASH_COMMAND" >&2' ERR
${session}
echo "README session complete" >&2`;
    const r = await runBash(script, {
      cwd: home,
      env: { HOME: home, RSI_CONFIG_DIR: join(home, 'config'), RSI_CREDENTIAL_STORE: 'file', BROWSER: FAKE_BROWSER },
    });
    expect(r.stderr).not.toContain('README line failed');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('README session complete');
    expect(r.stderr).toContain('✓ Signed in to');
    expect(r.stderr).toMatch(/✓ Started \d+ analys[ie]s for "My first project"/);
    expect(existsSync(join(home, 'assets.csv'))).toBe(true);
    expect(readFileSync(join(home, 'assets.csv'), 'utf8').split('\n').length).toBeGreaterThan(2);
    // The sandbox was quiet: no request log lines among the session's messages.
    expect(r.stderr).not.toMatch(/\bGET \/api\/v1\//);
  });
});
