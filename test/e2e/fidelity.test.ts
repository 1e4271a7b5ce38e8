// Field-grade fidelity, end to end: bin/rsi.js against real `rsi sandbox` processes that page short
// (`short-pages`), report wrong totals (`wrong-total`) or leave out every optional member (`sparse`).
// Every read command, in every format, must exit 0 with every row the server sent — compared with a
// direct page walk over HTTP that follows the data to an empty page — and `--all` must end. Then
// route scopes (a UUID project with a token holding only `analyses:run`) and exit 10 (only for what
// this command saw fail).
import { spawn } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { RSI_BIN, cleanEnv, type CliResult, CHILD_BOUND_MS } from '../support/cli.js';
import { type E2e, useSandbox } from '../support/e2e.js';
import { advanceSandbox } from '../support/sandbox.js';

const FORMATS = ['table', 'tsv', 'csv', 'json', 'ndjson'] as const;
type Format = (typeof FORMATS)[number];
type Row = Record<string, unknown>;

type Server = E2e;

function rsiOn(server: Server, args: readonly string[], token = server.token): Promise<CliResult> {
  return server.rsi(args, { as: token });
}

async function getJson(server: Server, path: string): Promise<Row> {
  const res = await server.api('GET', path);
  expect(res.status, path).toBe(200);
  return (await res.json()) as Row;
}

/** Relations as the data has them: the offset steps by the rows received, until an empty page. */
async function walkRelations(server: Server, id: string, relation: string): Promise<Row[]> {
  const rows: Row[] = [];
  for (;;) {
    const page = await getJson(server, `/keywords/${id}/relations?relation=${relation}&limit=100&offset=${rows.length}`);
    const data = page.data as Row[];
    if (data.length === 0) return rows;
    rows.push(...data);
  }
}

/** Search hits as the data has them: page after page, until an empty one. */
async function walkSearch(server: Server, q: string): Promise<Row[]> {
  const rows: Row[] = [];
  for (let page = 1; ; page++) {
    const body = await getJson(server, `/keywords?q=${encodeURIComponent(q)}&page=${page}&limit=20`);
    const data = body.data as Row[];
    if (data.length === 0) return rows;
    rows.push(...data);
  }
}

const lines = (text: string): string[] => text.split(/\r?\n/).filter((l) => l !== '');

interface Case {
  name: string;
  args: string[];
  /** What the server sent: the rows a format must carry, in order. */
  rows: (server: Server) => Promise<Row[]>;
  /** The JSON document printed by --json / a single ndjson line, when not a bare array of rows. */
  doc?: (server: Server) => Promise<Row>;
  /** The rows inside that document. */
  rowsOf?: (doc: Row) => Row[];
  /** ndjson prints the document on one line rather than one row per line. */
  ndjsonIsDoc?: boolean;
  /** The value that identifies a row in text formats, when the format shows it. */
  idOf: (row: Row) => string | undefined;
  /** Text formats print exactly one line per row (plus a header in csv and table). */
  linePerRow: boolean;
  /** Formats that by design leave the identifying value out of the text (they show names). */
  idHiddenIn?: readonly Format[];
  /**
   * A multi-part reply: in tsv/csv the rows are those whose first cell is this section name; a
   * table has titled parts, so only the values are looked for there.
   */
  section?: string;
  /** A table shows other blocks after these rows (opportunities' analyses): there, only the ids are checked. */
  tableBlocks?: true;
}

let egfr: string;
let nsclc: string;

const searchRows = (q: string) => (s: Server) => walkSearch(s, q);
const relRows = (id: () => string, rel: string) => (s: Server) => walkRelations(s, id(), rel);

const CASES: Case[] = [
  {
    name: 'keywords search (one page)',
    args: ['keywords', 'search', 'in', '--limit', '20'],
    rows: async (s) => (await getJson(s, '/keywords?q=in&limit=20')).data as Row[],
    doc: (s) => getJson(s, '/keywords?q=in&limit=20'),
    rowsOf: (d) => d.data as Row[],
    idOf: (r) => r.id as string,
    linePerRow: true,
  },
  {
    name: 'keywords search --all',
    args: ['keywords', 'search', 'in', '--all'],
    rows: searchRows('in'),
    idOf: (r) => r.id as string,
    linePerRow: true,
  },
  {
    name: 'keywords relations (one page)',
    args: [],
    rows: async (s) => (await getJson(s, `/keywords/${egfr}/relations?relation=assets&limit=100`)).data as Row[],
    doc: (s) => getJson(s, `/keywords/${egfr}/relations?relation=assets&limit=100`),
    rowsOf: (d) => d.data as Row[],
    idOf: (r) => r.id as string,
    linePerRow: true,
  },
  {
    name: 'keywords relations --all (a total that over-reports under wrong-total)',
    args: [],
    rows: relRows(() => egfr, 'pipeline_targets'),
    idOf: (r) => r.id as string,
    linePerRow: true,
  },
  {
    name: 'keywords relations --all (a disease: a total that under-reports under wrong-total)',
    args: [],
    rows: relRows(() => nsclc, 'pipeline_targets'),
    idOf: (r) => r.id as string,
    linePerRow: true,
  },
  {
    name: 'keywords get --include indications',
    args: [],
    rows: async (s) => [await getJson(s, `/keywords/${egfr}?include=indications`)],
    doc: (s) => getJson(s, `/keywords/${egfr}?include=indications`),
    rowsOf: (d) => [d],
    ndjsonIsDoc: true,
    idOf: (r) => r.id as string,
    linePerRow: false,
  },
  {
    name: 'projects list',
    args: ['projects', 'list'],
    rows: async (s) => (await getJson(s, '/projects')).projects as Row[],
    doc: (s) => getJson(s, '/projects'),
    rowsOf: (d) => d.projects as Row[],
    idOf: (r) => r.id as string,
    linePerRow: true,
  },
  {
    name: 'status',
    args: ['status', 'Oncology watchlist'],
    rows: async (s) => (await getJson(s, `/projects/${await projectId(s, 'Oncology watchlist')}/status`)).analyses as Row[],
    doc: async (s) => getJson(s, `/projects/${await projectId(s, 'Oncology watchlist')}/status`),
    rowsOf: (d) => d.analyses as Row[],
    ndjsonIsDoc: true,
    idOf: (r) => r.keyword_id as string | undefined,
    linePerRow: false,
  },
  {
    name: 'signals',
    args: ['signals', 'KRAS inhibitors'],
    rows: async (s) => (await getJson(s, `/projects/${await projectId(s, 'KRAS inhibitors')}/signals`)).signals as Row[],
    doc: async (s) => getJson(s, `/projects/${await projectId(s, 'KRAS inhibitors')}/signals`),
    rowsOf: (d) => d.signals as Row[],
    idOf: (r) => r.signal_keyword_id as string,
    linePerRow: true,
  },
  {
    name: 'opportunities',
    args: ['opportunities', 'Oncology watchlist'],
    rows: async (s) => (await getJson(s, `/projects/${await projectId(s, 'Oncology watchlist')}/opportunities`)).keywords as Row[],
    doc: async (s) => getJson(s, `/projects/${await projectId(s, 'Oncology watchlist')}/opportunities`),
    rowsOf: (d) => d.keywords as Row[],
    idOf: (r) => r.keyword_id as string,
    linePerRow: true,
    idHiddenIn: ['table'],
    // csv/tsv: the scored keywords alone (the analyses are `--analyses`); a table shows both blocks.
    tableBlocks: true,
  },
];

/** The args of cases whose keyword id is known only once a sandbox answered. */
function argsOf(c: Case): string[] {
  if (c.name === 'keywords relations (one page)') return ['keywords', 'relations', egfr, '--relation', 'assets', '--limit', '100'];
  if (c.name.startsWith('keywords relations --all (a total that over'))
    return ['keywords', 'relations', 'EGFR', '--relation', 'pipeline_targets', '--all'];
  if (c.name.startsWith('keywords relations --all (a disease'))
    return ['keywords', 'relations', nsclc, '--relation', 'pipeline_targets', '--all'];
  if (c.name.startsWith('keywords get')) return ['keywords', 'get', egfr, '--include', 'indications'];
  return c.args;
}

async function projectId(server: Server, name: string): Promise<string> {
  const { projects } = (await getJson(server, '/projects')) as { projects: Row[] };
  return projects.find((p) => p.name === name)!.id as string;
}

/** What the server holds for a case, read once per case: the sandbox's data does not change between formats. */
interface Sent {
  rows: Row[];
  doc: Row | undefined;
}

/** Every row the server sent, once and in order, in what `format` printed. */
function expectEveryRow(sent: Sent, c: Case, format: Format, r: CliResult): void {
  const { rows } = sent;
  const what = `${c.name} --format ${format}`;
  if (format === 'json' || format === 'ndjson') {
    let printed: Row[];
    if (format === 'json') {
      const parsed = JSON.parse(r.stdout) as Row | Row[];
      printed = Array.isArray(parsed) ? parsed : c.rowsOf!(parsed);
      // A one-document command prints the API's body exactly: every member, unknown ones included.
      if (!Array.isArray(parsed) && c.doc) expect(parsed, what).toEqual(sent.doc);
    } else {
      const docs = lines(r.stdout).map((l) => JSON.parse(l) as Row);
      printed = c.ndjsonIsDoc ? c.rowsOf!(docs[0]!) : docs;
      if (c.ndjsonIsDoc) expect(docs, what).toHaveLength(1);
    }
    expect(printed, what).toEqual(rows);
    return;
  }
  let text = lines(r.stdout);
  let header = format === 'tsv' ? 0 : 1;
  // A table shows ids shortened to a unique prefix of at least 8 characters (docs/scripting.md).
  const shown = (id: string): string => (format === 'table' ? id.slice(0, 8) : id);
  if (c.section !== undefined || (c.tableBlocks && format === 'table')) {
    if (format === 'table') {
      if (!c.idHiddenIn?.includes(format)) for (const row of rows) expect(r.stdout, what).toContain(shown(c.idOf(row) ?? ''));
      return;
    }
    text = text.filter((l) => l.startsWith(`${c.section}${format === 'tsv' ? '\t' : ','}`));
    header = 0;
  }
  if (c.linePerRow) {
    expect(text.length - (rows.length > 0 ? header : 0), `${what}: one line per row`).toBe(rows.length);
  }
  if (c.idHiddenIn?.includes(format)) return;
  for (const [i, row] of rows.entries()) {
    const id = c.idOf(row);
    if (id === undefined) continue;
    if (c.linePerRow) expect(text[header + i], `${what}: row ${i}`).toContain(shown(id));
    else expect(r.stdout, `${what}: ${id}`).toContain(shown(id));
  }
}

for (const fault of ['short-pages', 'wrong-total', 'sparse'] as const) {
  // The cases of one fault read a sandbox no case writes to, so they run side by side: the file no
  // longer holds the suite's tail while other workers sit idle.
  describe.concurrent(`--fault ${fault}: every read command, every format, every row`, () => {
    const server = useSandbox(['--fault', fault]);

    beforeAll(async () => {
      const find = async (q: string) => ((await getJson(server, `/keywords?q=${encodeURIComponent(q)}`)).data as Row[])[0]!.id as string;
      egfr = await find('EGFR');
      nsclc = await find('Non-small cell lung cancer');
    });

    for (const c of CASES) {
      it(`${c.name}: exit 0 with every row in ${FORMATS.join(', ')}`, async () => {
        const sent: Sent = { rows: await c.rows(server), doc: c.doc ? await c.doc(server) : undefined };
        // The formats run one after the other: seven engineers share two cores.
        for (const format of FORMATS) {
          const r = await rsiOn(server, [...argsOf(c), '--format', format]);
          expect(r.signal, `${c.name} --format ${format} ended`).toBeNull();
          expect(r.code, `${c.name} --format ${format}: ${r.stderr}`).toBe(0);
          expectEveryRow(sent, c, format, r);
          // A total that disagrees with the data is one warning line, never a lost or extra row.
          const warnings = r.stderr.split('\n').filter((l) => l.startsWith('warning:'));
          const walksWrongTotal = fault === 'wrong-total' && c.name.includes('--all') && c.name.includes('relations');
          expect(warnings, `${c.name} --format ${format}: ${r.stderr}`).toHaveLength(walksWrongTotal ? 1 : 0);
        }
      });
    }

    if (fault !== 'sparse') {
      it('relations --all over 1,200 rows ends with each row once (ndjson)', async () => {
        const rows = await walkRelations(server, egfr, 'assets');
        const r = await rsiOn(server, ['keywords', 'relations', egfr, '--relation', 'assets', '--all', '--format', 'ndjson']);
        expect(r.code, r.stderr).toBe(0);
        expect(lines(r.stdout).map((l) => (JSON.parse(l) as Row).id)).toEqual(rows.map((x) => x.id));
        expect(rows).toHaveLength(1200);
      });
    }
  });
}

describe('route scopes and exit 10', () => {
  const server = useSandbox();

  async function post(path: string, body: unknown): Promise<Row> {
    const res = await server.api('POST', path, body);
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    return (await res.json()) as Row;
  }

  const advance = (seconds: number): Promise<void> => advanceSandbox(server.sandbox, seconds);

  /** A project with setup finished and its scan done, and its signals by rank. */
  async function readyProject(name: string): Promise<{ id: string; signals: Row[] }> {
    const id = await server.newProject(name);
    await advance(31);
    const { signals } = (await getJson(server, `/projects/${id}/signals?limit=500`)) as { signals: Row[] };
    return { id, signals };
  }

  const selection = (s: Row) => `${s.keyword_id as string}:${s.signal_keyword_id as string}`;

  it('analyses run <uuid> works with a token holding only analyses:run (no GET /projects)', async () => {
    const runOnly = await server.tokenFor(['analyses:run']);
    const { id, signals } = await readyProject('Scoped run');
    const pick = signals.find((s) => (s.rank as number) % 7 !== 0)!;
    const r = await rsiOn(server, ['analyses', 'run', id, '--select', selection(pick), '--json'], runOnly);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { runs: Row[] }).runs).toHaveLength(1);
    // The same token cannot list projects: a name would need service:read, and says so.
    const byName = await rsiOn(server, ['analyses', 'run', 'Scoped run', '--select', selection(pick)], runOnly);
    expect(byName.code).toBe(4);
    expect(byName.stderr).toContain('service:read');
  });

  it('analyses run --wait exits 10 when an analysis it started fails', async () => {
    const { id, signals } = await readyProject('Started a failure');
    const failing = signals.find((s) => (s.rank as number) % 7 === 0)!;
    const r = await watchWhile(['analyses', 'run', id, '--select', selection(failing), '--wait', '--interval', '0.2', '--json'], 26);
    expect(r.code, r.stderr).toBe(10);
  });

  it('analyses run --wait on a project with a failure in its history: exit 0, the old failure a note', async () => {
    const { id, signals } = await readyProject('Old failure');
    const failing = signals.find((s) => (s.rank as number) % 7 === 0)!;
    await post(`/projects/${id}/analyses`, {
      selections: [{ keyword_id: failing.keyword_id, signal_keyword_id: failing.signal_keyword_id }],
    });
    await advance(26);
    const fine = signals.find((s) => (s.rank as number) % 7 !== 0)!;
    const r = await watchWhile(['analyses', 'run', id, '--select', selection(fine), '--wait', '--interval', '0.2', '--json'], 26);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^note: 1 analysis .* had failed before/m);
  });

  it('status --watch exits 10 for an analysis that failed while it watched', async () => {
    const { id, signals } = await readyProject('Failed while watched');
    const failing = signals.find((s) => (s.rank as number) % 7 === 0)!;
    await post(`/projects/${id}/analyses`, {
      selections: [{ keyword_id: failing.keyword_id, signal_keyword_id: failing.signal_keyword_id }],
    });
    const r = await watchWhile(['status', id, '--watch', '--interval', '0.2', '--json'], 26);
    expect(r.code, r.stderr).toBe(10);
    expect(r.stderr).toMatch(
      /^rsi: scoring of .* is done, but 1 keyword failed while this command watched: .* \(the service reports 1 of 1 analysis failed\)$/m,
    );
  });

  /**
   * Runs a watching command and, once it has printed its first line on stdout, jumps the sandbox
   * clock `seconds` ahead: the watch sees the run in flight, then finished, however slow the machine.
   */
  function watchWhile(args: string[], seconds: number): Promise<CliResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [RSI_BIN, ...args], {
        env: cleanEnv({ RSI_TOKEN: server.token, RSI_BASE_URL: server.url, RSI_CONFIG_DIR: server.configDir }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      let advanced = false;
      child.stdout.setEncoding('utf8').on('data', (c: string) => {
        stdout += c;
        if (!advanced && stdout.includes('\n')) {
          advanced = true;
          advance(seconds).catch(reject);
        }
      });
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_BOUND_MS);
      child.once('error', reject);
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal, stdout, stderr });
      });
    });
  }
});
