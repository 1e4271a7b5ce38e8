// Hostile text, the catalogue (issue 11, "Done when"): every read command and `analyses run`, in
// table, tsv and csv, against `rsi sandbox --fault hostile`, whose every person-readable string
// carries terminal escapes, bidi controls and a spreadsheet formula start. No raw control byte may
// reach stdout or stderr, and no CSV cell may start a formula.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliResult } from '../support/cli.js';
import { obtainTokens } from '../support/oauth.js';
import { HOSTILE_PLAIN_PROJECT, rawControls } from '../support/sandbox.js';
import { runCli, startSandbox, type InProcessSandbox } from '../support/inproc.js';

const FORMATS = ['table', 'tsv', 'csv'] as const;
type Format = (typeof FORMATS)[number];
const PROJECT = HOSTILE_PLAIN_PROJECT;

let sandbox: InProcessSandbox;
let configDir: string;
let token: string;
let keywordId: string;
/** A project with finished (and one failed) analyses, so opportunities and status have rows. */
let oncologyId: string;

function rsi(args: readonly string[], input?: string): Promise<CliResult> {
  return runCli(args, { env: { RSI_TOKEN: token, RSI_BASE_URL: sandbox.url, RSI_CONFIG_DIR: configDir }, input });
}

/** RFC 4180: fields separated by commas, records by CRLF, quoted fields may hold anything. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === ',') record.push(field), (field = '');
    else if (ch === '\r' && text[i + 1] === '\n') {
      record.push(field), records.push(record), (record = []), (field = ''), i++;
    } else if (ch === '\n') throw new Error(`bare LF outside quotes at ${i}: not RFC 4180`);
    else field += ch;
  }
  if (field !== '' || record.length > 0) throw new Error('last record does not end in CRLF');
  return records;
}

/** What a spreadsheet would run: a cell starting =, +, -, @, tab or CR that is not a plain number. */
function formulaCells(records: string[][]): string[] {
  return records.flat().filter((c) => /^[=+\-@\t\r]/.test(c) && !/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(c));
}

/** Asserts the output of one run is terminal-safe (and, for csv, one valid formula-free document). */
function expectSafe(r: CliResult, format: Format, what: string): void {
  const label = `${what} --format ${format}`;
  expect(rawControls(r.stderr), `${label}: stderr\n${r.stderr}`).toEqual([]);
  expect(r.stderr, `${label}: a tab on stderr`).not.toContain('\t');
  expect(rawControls(r.stdout), `${label}: stdout\n${r.stdout}`).toEqual([]);
  if (format === 'table') expect(r.stdout, `${label}: a tab in a table`).not.toContain('\t');
  if (format === 'csv' && r.stdout !== '') {
    const records = parseCsv(r.stdout);
    const width = records[0]!.length;
    for (const rec of records) expect(rec, `${label}: ragged record`).toHaveLength(width);
    expect(formulaCells(records), label).toEqual([]);
  }
  if (format === 'tsv' && r.stdout !== '') {
    const rows = r.stdout.replace(/\n$/, '').split('\n');
    const width = rows[0]!.split('\t').length;
    for (const row of rows) expect(row.split('\t'), `${label}: ragged row`).toHaveLength(width);
  }
}

beforeAll(async () => {
  sandbox = await startSandbox(['--auto-approve', '--fault', 'hostile', '--time-scale', '50']);
  token = (await obtainTokens(sandbox.url)).access_token;
  configDir = mkdtempSync(join(tmpdir(), 'rsi-hostile-'));
  // Keyword names are hostile, so exact name lookup cannot work: take an id from search.
  const found = await rsi(['keywords', 'search', 'EGFR', '--json']);
  expect(found.code, found.stderr).toBe(0);
  keywordId = (JSON.parse(found.stdout) as { data: Array<{ id: string }> }).data[0]!.id;
  // Project names are hostile too (all but one): take the id.
  const projects = await rsi(['projects', 'list', '--json']);
  expect(projects.code, projects.stderr).toBe(0);
  oncologyId = (JSON.parse(projects.stdout) as { projects: Array<{ id: string; name: string }> }).projects.find((p) =>
    p.name.includes('Oncology watchlist'),
  )!.id;
});

afterAll(async () => {
  await sandbox?.stop();
  if (configDir) rmSync(configDir, { recursive: true, force: true });
});

describe('every read command, in table, tsv and csv, shows hostile text escaped', () => {
  const commands: Array<[string, () => string[], number]> = [
    ['keywords search', () => ['keywords', 'search', 'a', '--limit', '20'], 0],
    ['keywords search --all', () => ['keywords', 'search', 'egfr', '--all'], 0],
    ['keywords get --include', () => ['keywords', 'get', keywordId, '--include', 'indications,sponsors'], 0],
    ['keywords relations', () => ['keywords', 'relations', keywordId, '--relation', 'indications'], 0],
    ['keywords relations --all', () => ['keywords', 'relations', keywordId, '--relation', 'assets', '--all'], 0],
    ['projects list', () => ['projects', 'list'], 0],
    ['status', () => ['status', PROJECT], 0],
    ['status with analyses and runs', () => ['status', oncologyId], 0],
    ['signals', () => ['signals', PROJECT, '--limit', '20'], 0],
    ['opportunities', () => ['opportunities', oncologyId], 0],
    ['an API error (404 body)', () => ['keywords', 'get', '00000000-0000-4000-8000-000000000000'], 5],
    ['the --debug trace', () => ['keywords', 'search', 'egfr', '--debug'], 0],
  ];

  it.each(commands)('%s', async (what, args, code) => {
    const results = await Promise.all(FORMATS.map((format) => rsi([...args(), '--format', format])));
    results.forEach((r, i) => {
      const format = FORMATS[i]!;
      expect(r.code, `${what} --format ${format}: ${r.stderr}`).toBe(code);
      expectSafe(r, format, what);
      // The hostile text was there and is shown, escaped (a table may cut it short with "…").
      const shown = `${r.stdout}${r.stderr}`;
      if (format === 'table') expect(shown, `${what} --format table`).toMatch(/\\x1b\[2J|…/);
      else expect(shown, `${what} --format ${format}`).toContain('\\x1b[2J');
    });
  });

  it('--json stays exact: the raw sequences are in the parsed strings', async () => {
    const r = await rsi(['projects', 'list', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const names = (JSON.parse(r.stdout) as { projects: Array<{ name: string }> }).projects.map((p) => p.name);
    expect(names.some((n) => n.includes('\u001b[2J') && n.includes('\u202e'))).toBe(true);
  });
});

describe('analyses run shows the confirmation and the result escaped', () => {
  it.each(FORMATS)('without a terminal and without --yes: the confirmation on stderr is escaped (%s)', async (format) => {
    const r = await rsi(['analyses', 'run', PROJECT, '--top', '2', '--type', 'target', '--format', format]);
    expect(r.code, r.stderr).toBe(7);
    expectSafe(r, format, 'analyses run (refused)');
    expect(r.stderr).toContain('The service asks you to confirm');
    // The assumption and the signal names are server text.
    expect(r.stderr).toContain('\\x1b]52;c;');
  });

  it.each(FORMATS)('with --yes: runs on stdout, skipped (with their reasons) on stdout, all escaped (%s)', async (format) => {
    const started = await rsi(['analyses', 'run', PROJECT, '--top', '1', '--type', 'target', '--yes', '--format', format]);
    expect(started.code, started.stderr).toBe(0);
    expectSafe(started, format, 'analyses run --yes');
    // The same selection twice: the second time the service skips it with a (hostile) reason.
    const signals = await rsi(['signals', PROJECT, '--json']);
    const list = (JSON.parse(signals.stdout) as { signals: Array<{ keyword_id: string; signal_keyword_id: string; analysed: boolean }> })
      .signals;
    const pair = list.filter((s) => !s.analysed)[FORMATS.indexOf(format)]!;
    const select = ['--select', `${pair.keyword_id}:${pair.signal_keyword_id}`];
    const first = await rsi(['analyses', 'run', PROJECT, ...select, '--format', format]);
    expect(first.code, first.stderr).toBe(0);
    const again = await rsi(['analyses', 'run', PROJECT, ...select, '--format', format]);
    expect(again.code, again.stderr).toBe(0);
    expectSafe(again, format, 'analyses run (skipped)');
    expect(again.stdout).toContain('skipped');
    // The reason is server text: escaped (an 80-column table may cut it short with "…").
    expect(again.stdout).toMatch(format === 'table' ? /\\x1b\[2J|…/ : /\\x1b\[2J/);
  }); // four rsi processes in a row: vitest's 300 s bound leaves room for a loaded machine
});
