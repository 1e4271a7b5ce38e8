// Forgiving inputs end to end against a real sandbox: a base URL ending in /api/v1, kebab relation
// names, --activity refused outside sponsors, watchlist entries by keyword name, --select by name.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startSandbox, type InProcessSandbox } from '../support/inproc.js';
import { FAKE_BROWSER } from '../support/browser.js';

let sandbox: InProcessSandbox;
const dir = mkdtempSync(join(tmpdir(), 'rsi-forgiving-'));
const env = { RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file', BROWSER: FAKE_BROWSER };
const rsi = (args: string[], input?: string) => runCli(args, { env, ...(input === undefined ? {} : { input }) });

beforeAll(async () => {
  sandbox = await startSandbox(['--auto-approve', '--quiet']);
  const login = await rsi(['login', '--base-url', `${sandbox.url}/api/v1`]);
  expect(login.code, login.stderr).toBe(0);
  expect(login.stderr).toContain(`note: using ${sandbox.url} as the base URL`);
});
afterAll(async () => {
  await sandbox?.stop();
});

describe('forgiving inputs', () => {
  it('saves the base without /api/v1', async () => {
    const status = await rsi(['auth', 'status', '--json']);
    expect(JSON.parse(status.stdout).baseUrl).toBe(sandbox.url);
  });

  it('takes pipeline-targets and refuses --activity for indications', async () => {
    const ok = await rsi(['keywords', 'relations', 'KRAS', '--relation', 'pipeline-targets', '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).meta.relation).toBe('pipeline_targets');
    const bad = await rsi(['keywords', 'relations', 'KRAS', '--relation', 'indications', '--activity', 'trials']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('rsi: --activity only applies with --relation sponsors (got --relation indications)\n');
  });

  it('resolves watchlist names and warns about unknown keyword ids', async () => {
    const list = JSON.stringify([
      'EGFR',
      { entity_id: '00000000-0000-4000-8000-000000000000', entity_type: 'target', entity_name: 'Typo' },
    ]);
    const r = await rsi(['projects', 'create', '--name', 'By names', '--watchlist-file', '-', '--goal', 'target,modality', '--json'], list);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('warning: watchlist item "Typo" (00000000-0000-4000-8000-000000000000) is not a known keyword id');
    const unknown = await rsi(['projects', 'create', '--name', 'Nope', '--watchlist-file', '-'], '["No such keyword at all"]');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no keyword named "No such keyword at all"');
  });

  it('selects a signal by name', async () => {
    const signals = JSON.parse((await rsi(['signals', 'KRAS inhibitors', '--json'])).stdout) as {
      signals: { keyword_id: string; signal_keyword_id: string; name: string }[];
    };
    const names = signals.signals.map((s) => s.name.toLowerCase());
    const unique = signals.signals.find((s) => names.filter((n) => n === s.name.toLowerCase()).length === 1)!;
    const r = await rsi(['analyses', 'run', 'KRAS inhibitors', '--select', unique.name.toUpperCase(), '--yes', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const reply = JSON.parse(r.stdout) as { runs: { keyword_id: string }[]; skipped: { signal_keyword_id: string }[] };
    expect([...reply.runs.map((x) => x.keyword_id), ...reply.skipped.map((x) => x.signal_keyword_id)].length).toBeGreaterThan(0);
    const none = await rsi(['analyses', 'run', 'KRAS inhibitors', '--select', 'No such signal', '--yes']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no signal of "KRAS inhibitors" has that name');
  });
});
