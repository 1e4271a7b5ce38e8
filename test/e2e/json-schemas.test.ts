// Every --json document has a published JSON Schema (issue 43, item 2): `rsi help schema <command…>`
// prints it, dist/schemas/ ships it (each file checked against what rsi prints), and here each
// command's real output, from main() in process against `rsi sandbox`, is validated against its
// own schema, rsi's own documents too (doctor, auth status, config list, the --watch lines). Ajv
// (draft 2020-12) is the validator the MCP SDK already brings.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/inproc.js';
import { useSandbox } from '../support/e2e.js';

const e2e = useSandbox(['--time-scale', '50']);
const DIST = fileURLToPath(new URL('../../dist/schemas/', import.meta.url));
const ajv = new Ajv2020({ allErrors: true, strict: false });
const validators = new Map<string, ReturnType<Ajv2020['compile']>>();

/** The schema `rsi help schema` prints for a command, checked against the shipped file, compiled once. */
async function validator(command: string) {
  let validate = validators.get(command);
  if (!validate) {
    const r = await runCli(['help', 'schema', ...command.split(' ')]);
    expect(r.code, r.stderr).toBe(0);
    const printed = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(JSON.parse(readFileSync(join(DIST, `${command.replace(/ /g, '-')}.json`), 'utf8'))).toEqual(printed);
    validate = ajv.compile(printed);
    validators.set(command, validate);
  }
  return validate;
}

/** Runs rsi with --json (or as given) and validates each document it printed (one, or one a line). */
async function conforms(command: string, argv: string[], options: { lines?: boolean; code?: number; env?: Record<string, string> } = {}) {
  const r = await e2e.rsi(argv, { env: options.env });
  expect(r.code, r.stderr).toBe(options.code ?? 0);
  const documents = options.lines
    ? r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
    : [JSON.parse(r.stdout)];
  expect(documents.length).toBeGreaterThan(0);
  const validate = await validator(command);
  for (const document of documents) expect(validate(document) ? [] : validate.errors, `${argv.join(' ')}`).toEqual([]);
  return documents;
}

let project = '';
beforeAll(async () => {
  project = await e2e.newProject('Schema checks');
  const watched = await e2e.rsi(['status', project, '--watch', '--interval', '0.1', '--json']);
  expect(watched.code, watched.stderr).toBe(0);
});

describe('each --json document validates against its published schema', () => {
  it.each([
    ['keywords search', ['keywords', 'search', 'kinase', '--json']],
    ['keywords search', ['keywords', 'search', 'kinase', '--all', '--json']],
    ['keywords get', ['keywords', 'get', 'EGFR', '--json']],
    ['keywords get', ['keywords', 'get', 'EGFR', '--include', 'indications,sponsors', '--json']],
    ['keywords relations', ['keywords', 'relations', 'EGFR', '--relation', 'assets', '--json']],
    ['keywords relations', ['keywords', 'relations', 'EGFR', '--relation', 'assets', '--all', '--json']],
    ['keywords relations', ['keywords', 'relations', 'EGFR', '--relation', 'all', '--json']],
    ['keywords relations', ['keywords', 'relations', 'EGFR', '--relation', 'all', '--all', '--json']],
    ['projects list', ['projects', 'list', '--json']],
    ['signals', ['signals', 'KRAS inhibitors', '--json']],
    ['opportunities', ['opportunities', 'KRAS inhibitors', '--json']],
    ['status', ['status', 'KRAS inhibitors', '--json']],
    ['config list', ['config', 'list', '--json']],
  ])('%s: %j', async (command, argv) => {
    await conforms(command, argv);
  });

  it('batches: keywords get - and keywords relations -, an error row among them', async () => {
    for (const [command, argv] of [
      ['keywords get', ['keywords', 'get', '-', '--json']],
      ['keywords relations', ['keywords', 'relations', '-', '--relation', 'indications', '--json']],
    ] as const) {
      const r = await e2e.rsi([...argv], { input: 'EGFR\nNo such keyword\n' });
      expect(r.code).toBe(11);
      const validate = await validator(command);
      const document = JSON.parse(r.stdout);
      expect(validate(document) ? [] : validate.errors).toEqual([]);
    }
  });

  it('projects create, analyses run with --wait (its lines), status --watch (its lines)', async () => {
    await conforms('projects create', ['projects', 'create', '--name', 'Schema made', '--brief', 'EGFR in lung', '--json']);
    const lines = await conforms('analyses run', ['analyses', 'run', project, '--top', '1', '--type', 'target', '--yes', '--json'], {
      lines: true,
    });
    expect(lines).toHaveLength(1);
    const waited = await e2e.rsi(['analyses', 'run', project, '--top', '1', '--type', 'target', '--yes', '--wait', '--json']);
    // 10: one of the runs failed in the sandbox; the lines are the documents all the same.
    expect([0, 10], waited.stderr).toContain(waited.code);
    const [reply, ...statuses] = waited.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(statuses.length).toBeGreaterThan(0);
    expect((await validator('analyses run'))(reply)).toBe(true);
    const status = await validator('status');
    for (const line of statuses) expect(status(line) ? [] : status.errors).toEqual([]);
    await conforms('status', ['status', project, '--watch', '--interval', '0.1', '--json'], { lines: true });
  });

  it("rsi's own documents: doctor, auth status", async () => {
    const doctor = await e2e.rsi(['doctor', '--json']);
    const validate = await validator('doctor');
    expect(validate(JSON.parse(doctor.stdout)) ? [] : validate.errors).toEqual([]);
    await conforms('auth status', ['auth', 'status', '--json']);
  });

  it('the MCP documents: scoreboard, mcp tools', async () => {
    const mcp = await e2e.tokenFor(['service:read'], `${e2e.url}/mcp`);
    await conforms('scoreboard', ['scoreboard', 'KRAS inhibitors', '--json'], { env: { RSI_MCP_TOKEN: mcp } });
    await conforms('mcp tools', ['mcp', 'tools', '--json'], { env: { RSI_MCP_TOKEN: mcp } });
  });

  it('a schema that cannot fail is no check: a wrong document is refused', async () => {
    const validate = await validator('keywords relations');
    expect(validate({ data: [{ name: 'no id' }], meta: { relation: 'assets', limit: 1, offset: 0, total: 1 } })).toBe(false);
    expect((await validator('doctor'))([{ name: 'x', ok: 'yes', detail: '' }])).toBe(false);
  });

  it('a schema is a JSON document like any other: --jq filters it', async () => {
    const r = await runCli(['help', 'schema', 'status', '--jq', '.required']);
    expect(r.code, r.stderr).toBe(0);
    const printed = JSON.parse((await runCli(['help', 'schema', 'status'])).stdout) as { required: string[] };
    expect(JSON.parse(r.stdout)).toEqual(printed.required);
  });

  it('the package ships a schema for every command rsi help schema lists, and nothing else', async () => {
    const r = await runCli(['help', 'schema']);
    const listed = r.stdout
      .split('\n')
      .slice(1)
      .map((l) => l.trim())
      .filter(Boolean);
    expect(readdirSync(DIST).sort()).toEqual(listed.map((c) => `${c.replace(/ /g, '-')}.json`).sort());
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('dist/');
  });
});

describe('--jq on a member the document does not have', () => {
  it('names the members it has (opportunities[] on the opportunities document)', async () => {
    const r = await e2e.rsi(['opportunities', 'KRAS inhibitors', '--jq', '.opportunities[]']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/Cannot iterate over null/);
    expect(r.stderr).toMatch(/^hint: the document's members are: keywords, project_analyses(, error)?/m);
  });

  it('says an --all document is an array', async () => {
    const r = await e2e.rsi(['keywords', 'search', 'kinase', '--all', '--jq', '.data[]']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^hint: the document is an array of \d+ items, each with members such as: id, name, type, synonyms/m);
  });
});
