import { it } from 'vitest';
import { useSandbox } from '../support/e2e.js';

const e2e = useSandbox(['--fault', 'html-502'], { quiet: false });
const rsi = (args: string[]) => e2e.rsi(args);

for (const args of [
  ['keywords', 'search', 'egfr'],
  ['projects', 'list', '--json'],
  ['keywords', 'relations', '00000000-0000-4000-8000-000000000000', '--relation', 'assets', '--all'],
]) {
  // Side by side: each case is mostly rsi waiting out its 502 retries, and nothing here changes the sandbox.
  it.concurrent(`${args.join(' ')} → exit 8 naming the 502, no HTML`, async ({ expect }) => {
    const r = await rsi(args);
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toMatch(/^rsi: .*502.*non-JSON/m);
    expect(r.stderr).not.toContain('<html>');
    expect(r.stdout).toBe('');
  });
}
