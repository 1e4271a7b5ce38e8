// The MCP-only features as dedicated commands, against a real sandbox: `rsi scoreboard` (ranked,
// every format) and `rsi projects create --from-brief` (scope shown first, confirmation like
// `analyses run`).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obtainTokens } from '../support/oauth.js';
import { runCli, startSandbox, type InProcessSandbox } from '../support/inproc.js';

let sb: InProcessSandbox;
let env: Record<string, string>;
let projectCount: () => Promise<number>;
const dir = mkdtempSync(join(tmpdir(), 'rsi-mcp-features-'));

beforeAll(async () => {
  sb = await startSandbox(['--auto-approve']);
  const [mcp, api] = await Promise.all([obtainTokens(sb.url, { resource: `${sb.url}/mcp` }), obtainTokens(sb.url)]);
  env = { RSI_BASE_URL: sb.url, RSI_MCP_TOKEN: mcp.access_token, RSI_TOKEN: api.access_token, RSI_CONFIG_DIR: dir };
  projectCount = async () => {
    const res = await fetch(`${sb.url}/api/v1/projects`, { headers: { authorization: `Bearer ${api.access_token}` } });
    return ((await res.json()) as { projects: unknown[] }).projects.length;
  };
});
afterAll(async () => {
  await sb?.stop();
});

describe('rsi scoreboard', () => {
  it('ranks a project named through the API, as tsv rows by default when piped', async () => {
    const r = await runCli(['scoreboard', 'Oncology watchlist'], { env });
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.map((row) => row[0])).toEqual(rows.map((_, i) => String(i + 1)));
    const scores = rows.map((row) => Number(row[3]));
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(rows[0]).toHaveLength(10);
  });

  it('prints the tool reply with --json, a header with csv, one row per line with ndjson, and honours --limit', async () => {
    const json = await runCli(['scoreboard', 'Oncology watchlist', '--json', '--limit', '2'], { env });
    const doc = JSON.parse(json.stdout) as { project: { name: string }; scoreboard: Array<{ rank: number }> };
    expect(doc.project.name).toBe('Oncology watchlist');
    expect(doc.scoreboard.map((x) => x.rank)).toEqual([1, 2]);
    const csv = await runCli(['scoreboard', 'Oncology watchlist', '--format', 'csv', '--limit', '1'], { env });
    expect(csv.stdout.split('\r\n')[0]).toBe('rank,name,type,score,momentum,maturity,competition,risk,translation,keyword_id');
    const nd = await runCli(['scoreboard', 'Oncology watchlist', '--format', 'ndjson', '--limit', '3'], { env });
    expect(
      nd.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { rank: number }).rank),
    ).toEqual([1, 2, 3]);
  });

  it('takes a UUID with only the MCP sign-in (no API token needed)', async () => {
    const json = await runCli(['scoreboard', 'Oncology watchlist', '--json'], { env });
    const id = (JSON.parse(json.stdout) as { project: { id: string } }).project.id;
    const r = await runCli(['scoreboard', id, '--format', 'tsv'], { env: { ...env, RSI_TOKEN: '' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^1\t/);
  });

  it('refuses a bad --limit (2), an unknown name (2) and a project the user is not in (4)', async () => {
    expect((await runCli(['scoreboard', 'Oncology watchlist', '--limit', '0'], { env })).code).toBe(2);
    expect((await runCli(['scoreboard', 'No such project'], { env })).code).toBe(2);
    const outsider = await runCli(['scoreboard', '00000000-0000-4000-8000-000000000000'], { env });
    expect(outsider.code).toBe(4);
    expect(outsider.stderr).toContain('not a member');
  });
});

describe('rsi projects create --from-brief', () => {
  const brief = join(dir, 'brief.md');
  writeFileSync(brief, 'Sotorasib resistance in NSCLC\n\nCompare KRAS inhibitors with an antibody-drug conjugate.\n');

  it('without a terminal and without --yes: shows the matched scope, creates nothing, exit 7', async () => {
    const before = await projectCount();
    const r = await runCli(['projects', 'create', '--from-brief', brief], { env });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain('The brief matches 4 scope items for the project "Sotorasib resistance in NSCLC"');
    expect(r.stderr).toMatch(/Non-small cell lung cancer\s+disease\s+NSCLC/);
    expect(r.stderr).toContain('hint: run again with --yes');
    expect(r.stdout).toBe('');
    expect(await projectCount()).toBe(before);
    // With --json the dry run's reply goes to stdout, as analyses run does with needs_confirmation.
    const json = await runCli(['projects', 'create', '--from-brief', brief, '--json'], { env });
    expect(json.code).toBe(7);
    expect(JSON.parse(json.stdout)).toMatchObject({ created: false, matched: expect.any(Array) });
  });

  it('with --yes: creates the project with the brief and prints its id and setup URL', async () => {
    const before = await projectCount();
    const r = await runCli(['projects', 'create', '--from-brief', brief, '--yes', '--name', 'Brief project'], { env });
    expect(r.code, r.stderr).toBe(0);
    // tsv as `projects create` prints it: id, name, role, setup_url, scan_error
    const [id, name, , setupUrl] = r.stdout.trim().split('\t');
    expect(name).toBe('Brief project');
    expect(setupUrl).toBe(`${sb.url}/projects/${id}/overview?setup=1`);
    expect(r.stderr).toContain('✓ Created project Brief project');
    expect(await projectCount()).toBe(before + 1);
  });

  it('reads the brief from stdin; --json prints the tool reply with the created project', async () => {
    const r = await runCli(['projects', 'create', '--from-brief', '-', '--yes', '--json'], { env, input: 'EGFR exon 20 in NSCLC' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ created: true, project: { name: 'EGFR exon 20 in NSCLC', role: 'owner' } });
  });

  it('stdin that carried the brief cannot answer: exit 7 naming --yes', async () => {
    const r = await runCli(['projects', 'create', '--from-brief', '-'], { env, input: 'EGFR in NSCLC' });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain('stdin carried the brief');
  });

  it('a brief that matches nothing is exit 2 and creates nothing; flags that set scope conflict (2)', async () => {
    const before = await projectCount();
    const none = await runCli(['projects', 'create', '--from-brief', '-', '--yes'], { env, input: 'We met on Tuesday.' });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no scope item');
    expect(await projectCount()).toBe(before);
    expect((await runCli(['projects', 'create', '--from-brief', brief, '--goal', 'target'], { env })).code).toBe(2);
    expect((await runCli(['projects', 'create', '--name', 'x', '--yes'], { env })).code).toBe(2);
    expect((await runCli(['projects', 'create', '--from-brief', join(dir, 'missing.md')], { env })).code).toBe(2);
  });
});
