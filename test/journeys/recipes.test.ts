// Every shell recipe in docs/scripting.md runs here, as written, under `bash -e -o pipefail`
// against a real sandbox: the success path, and the failure paths the recipe claims to handle.
// Only the example address https://research.example.com is replaced by the sandbox's.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidFor } from '../../src/sandbox/data.js';
import { obtainTokens } from '../support/oauth.js';
import { type InProcessSandbox, startSandbox } from '../support/inproc.js';
import { codeBlocks, runBash, type ShellResult } from '../support/shell.js';

const doc = readFileSync(new URL('../../docs/scripting.md', import.meta.url), 'utf8');
const blocks = codeBlocks(doc, 'sh');

let sandbox: InProcessSandbox;
let token: string;
let deadUrl: string;

beforeAll(async () => {
  sandbox = await startSandbox(['--auto-approve', '--quiet', '--time-scale', '200']);
  token = (await obtainTokens(sandbox.url)).access_token;
  // Port 1 (tcpmux) has no listener here: a port freed a moment ago could be taken again by
  // another suite running beside this one.
  deadUrl = 'http://127.0.0.1:1';
});
afterAll(async () => {
  await sandbox?.stop();
});

/** The block whose text contains `marker` (exactly one must). */
function block(marker: string): string {
  const found = blocks.filter((b) => b.code.includes(marker));
  expect(found, `one recipe containing ${JSON.stringify(marker)}`).toHaveLength(1);
  return found[0]!.code;
}

function run(code: string, env: Record<string, string | undefined> = {}, strict = true): Promise<ShellResult> {
  const base = env.RSI_BASE_URL ?? sandbox.url;
  const temp = mkdtempSync(join(tmpdir(), 'rsi-recipe-'));
  return runBash(code.replaceAll('https://research.example.com', base), {
    cwd: temp,
    strict,
    env: {
      RSI_BASE_URL: sandbox.url,
      RSI_TOKEN: token,
      RSI_ACCESS_TOKEN: token,
      RSI_CONFIG_DIR: join(temp, 'config'),
      RUNNER_TEMP: temp,
      PROJECT: 'KRAS inhibitors',
      ...env,
    },
  });
}

const MARKERS = [
  'export RSI_TOKEN="$RSI_ACCESS_TOKEN"',
  'rsi auth token',
  'rsi opportunities "$PROJECT" --json > opp.json',
  'EGFR=$(rsi keywords search EGFR',
  'rsi keywords relations NSCLC --relation assets',
  "rsi keywords search kinase --all --jq '.[].name'",
  'cat > watchlist.json',
  '--selections - --yes --wait',
  'for i in $(seq 1 60)',
  'rsi api GET /keywords',
  '$1 == "skipped"',
  "jq -r '.[] | [.name, .id] | @csv'",
  'select(.status == "failed")',
  'map(.count) | add',
  'rsi projects list --fields name,role,id',
  "printf '%s\\n' EGFR KRAS",
  'kinase-indications.csv',
  'rsi keywords relations NSCLC --relation all --all --format csv',
  'rsi help schema opportunities',
  'RSI_ERROR_FORMAT=json rsi status',
  '--resume done.ndjson',
  '--if-absent --json --timeout 2m',
];

describe('docs/scripting.md recipes', () => {
  it('every sh block is one of the recipes tested here', () => {
    expect(blocks.length).toBe(MARKERS.length);
    for (const b of blocks)
      expect(
        MARKERS.some((m) => b.code.includes(m)),
        b.code,
      ).toBe(true);
  });

  it('authentication in CI: RSI_TOKEN in use, never printed; no token → exit 3', async () => {
    const code = block(MARKERS[0]!);
    const ok = await run(code);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('RSI_TOKEN');
    expect(ok.stdout + ok.stderr).not.toContain(token);
    const none = await run(code, { RSI_ACCESS_TOKEN: '' });
    expect(none.code).toBe(3);
  });

  it('auth token feeds curl', async () => {
    const r = await run(block(MARKERS[1]!));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).projects.length).toBeGreaterThan(0);
  });

  it('exit codes: the case statement sees rsi’s code under set -e', async () => {
    const code = block(MARKERS[2]!);
    const ok = await run(code);
    expect(ok.code, ok.stderr).toBe(0);
    // A project the demo user is not a member of: by id, since it is not in their list.
    const competitor = uuidFor('project:Competitor intel');
    const forbidden = await run(code, { PROJECT: competitor });
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toContain(`no access to ${competitor}`);
    const down = await run(code, { RSI_BASE_URL: deadUrl });
    expect(down.code).toBe(75);
    expect(down.stderr).toContain('service down, retrying later');
    const unknown = await run(code, { PROJECT: 'No such project' });
    expect(unknown.code).toBe(1);
  });

  it('ids from names', async () => {
    const r = await run(`${block(MARKERS[3]!)}\necho "$EGFR $PROJECT"`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^[0-9a-f-]{36} [0-9a-f-]{36}$/);
  });

  it('export every relation: CSV and a sorted top 10, no SIGPIPE under pipefail', async () => {
    const r = await run(`${block(MARKERS[4]!)}\nwc -l < nsclc-assets.csv >&2`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').length).toBe(10);
    expect(Number(r.stderr.trim().split('\n').pop())).toBeGreaterThan(20);
  });

  it('every relation in one csv: each row led by its relation and activity, sponsors once per activity', async () => {
    const r = await run(`${block('rsi keywords relations NSCLC --relation all --all --format csv')}\ncat nsclc-relations.csv`);
    expect(r.code, r.stderr).toBe(0);
    const [head, ...rows] = r.stdout.trim().split('\r\n');
    expect(head).toBe('relation,activity,name,count,stage,id');
    const pairs = new Set(rows.map((row) => row.split(',').slice(0, 2).join(',')));
    expect(pairs).toContain('indications,');
    expect(pairs).toContain('assets,');
    expect([...pairs].filter((p) => p.startsWith('sponsors,')).length).toBeGreaterThan(0);
    for (const p of pairs)
      expect(['indications,', 'assets,', 'pipeline_targets,', 'sponsors,trials', 'sponsors,papers', 'sponsors,patents']).toContain(p);
  });

  it('the schema command: the members of a document, and a schema saved to a file', async () => {
    const r = await run(`${block('rsi help schema opportunities')}\njq -r .title relations.schema.json`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/"error",\s*"keywords",\s*"project_analyses"/);
    expect(r.stdout.trim().split('\n').pop()).toBe('rsi keywords relations --json');
  });

  it('errors as JSON lines: the failing command leaves one line on stderr, jq reads its code', async () => {
    const r = await run(block('RSI_ERROR_FORMAT=json rsi status'), { PROJECT: 'No such project zzz' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^[a-z][a-z_-]*$/);
  });

  it('a create safe to re-run: the second run prints the same project, and there is one of that name', async () => {
    const code = `${block('--if-absent --json --timeout 2m')}\necho "$id"`;
    const first = await run(code);
    expect(first.code, first.stderr).toBe(0);
    const second = await run(code);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout.trim()).toMatch(/\S/);
    expect(second.stdout.trim()).toBe(first.stdout.trim());
    expect(second.stderr).toContain('already exists (--if-absent): nothing was created');
  });

  it('every keyword matching a search', async () => {
    const r = await run(block(MARKERS[5]!));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').length).toBeGreaterThan(1);
  });

  it('create a project from a watchlist of names and wait for its scan; an unknown name is exit 2', async () => {
    const code = block(MARKERS[6]!);
    const r = await run(code);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('finish scoring setup at: http');
    expect(JSON.parse(r.stdout).next).not.toBe('wait');
    const bad = await run(code.replace('["EGFR", "KRAS"]', '["EGFR", "No such keyword"]'));
    expect(bad.code).toBe(2);
  });

  it('run analyses from chosen signals and wait; a project without setup passes on rsi’s code', async () => {
    const code = block(MARKERS[7]!);
    const r = await run(code);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).length).toBeGreaterThan(0);
    const noSetup = await run(code, { PROJECT: 'Immunology pipeline' });
    expect(noSetup.code, noSetup.stderr).toBe(6);
  });

  it('polling: ends on rsi’s exit code, not jq’s (signed out → 3, service down → 8)', async () => {
    const code = block(MARKERS[8]!);
    const ok = await run(code);
    expect(ok.code, ok.stderr).toBe(0);
    const signedOut = await run(code, { RSI_TOKEN: 'not-a-valid-token' });
    expect(signedOut.code).toBe(3);
    const down = await run(code, { RSI_BASE_URL: deadUrl });
    expect(down.code).toBe(8);
    // Also without pipefail, where `$(rsi … | jq …) || exit $?` used to see only jq's 0.
    const plain = await run(code, { RSI_TOKEN: 'not-a-valid-token' }, false);
    expect(plain.code).toBe(3);
  });

  it('rsi api', async () => {
    const r = await run(block(MARKERS[9]!));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('"name":"Scripted"');
  });

  it('formats: a multi-part reply picked by its section column; raw csv through jq', async () => {
    const parts = await run(block(MARKERS[10]!));
    expect(parts.code, parts.stderr).toBe(0);
    const card = await run('rsi keywords get EGFR --include indications --format csv > egfr.csv\nhead -1 egfr.csv');
    expect(card.code, card.stderr).toBe(0);
    expect(card.stdout).toMatch(/^section,/);
    const raw = await run(block(MARKERS[11]!));
    expect(raw.code, raw.stderr).toBe(0);
    expect(raw.stdout.split('\n')[0]).toMatch(/^".+","[0-9a-f-]{36}"$/);
  });

  it('any failed analysis fails the pipeline through jq -e; an unreachable service fails it too', async () => {
    const code = block(MARKERS[12]!);
    const status = await run(`rsi status "$PROJECT" --json`);
    expect(status.code, status.stderr).toBe(0);
    const failed = (JSON.parse(status.stdout) as { analyses: Array<{ status?: string }> }).analyses.some((a) => a.status === 'failed');
    const r = await run(code);
    expect(r.code, r.stderr).toBe(failed ? 1 : 0);
    const down = await run(code, { RSI_BASE_URL: deadUrl });
    expect(down.code).toBe(8);
  });

  it('--jq: ids, tab-separated names and a sum, without jq', async () => {
    const r = await run(block(MARKERS[13]!));
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout.trim().split('\n');
    expect(out[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(out.slice(1, -1).every((l) => /^[^\t]+\t[0-9a-f-]{36}$/.test(l))).toBe(true);
    expect(Number(out.at(-1))).toBeGreaterThan(0);
  });

  it("--fields: chosen csv columns and a sorted top 5; gh's --json name,id", async () => {
    const r = await run(`${block(MARKERS[14]!)}\nhead -1 projects.csv >&2`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.trim().split('\n').pop()).toBe('name,role,id');
    const lines = r.stdout.trim().split('\n');
    expect(lines.slice(0, 5).every((l) => /^\d+\t/.test(l))).toBe(true);
    expect(Object.keys(JSON.parse(lines.at(-1)!).projects[0])).toEqual(['name', 'id']);
  });

  it('a batch: rows for the names that resolve, exit 11 handled, the failed one named on stderr', async () => {
    const r = await run(block(MARKERS[15]!));
    expect(r.code, r.stderr).toBe(0);
    expect(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')[0]),
    ).toEqual(['EGFR', 'KRAS', 'EGFR']);
    expect(r.stderr).toMatch(/^rsi: No such keyword: no keyword named "No such keyword"$/m);
    // Signed out is not "some items failed": the recipe passes rsi's 3 on.
    const signedOut = await run(block(MARKERS[15]!), { RSI_TOKEN: 'not-a-valid-token' });
    expect(signedOut.code).toBe(3);
  });

  it('a batch fed by another rsi: NDJSON ids in, one csv out', async () => {
    const r = await run(`${block(MARKERS[16]!)}\nhead -1 kinase-indications.csv`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('input,name,count,stage,id,error,error_code');
  });
});

describe('docs/scripting.md: resume a stopped batch (issue 57)', () => {
  it('the same line for the first run and every run after a stop: one row an input', async () => {
    const r = await run(block('--resume done.ndjson'));
    expect(r.code, r.stderr).toBe(0);
    const [inputs, rows] = r.stdout.trim().match(/\d+/g)!.map(Number);
    expect(inputs).toBeGreaterThan(5);
    expect(rows).toBe(inputs);
  });
});
