/**
 * projects list / create: flags → options, and run with a fake client. `create --from-brief` goes
 * to the service's MCP tool, so its run takes a fake MCP session (deps.open) and a scripted
 * prompter; against the sandbox's /mcp it is test/e2e/mcp-features.test.ts.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import * as create from '../../../src/commands/projects/create/create.js';
import { fromBriefOptions, runFromBrief } from '../../../src/commands/projects/create/from-brief.js';
import * as list from '../../../src/commands/projects/list/list.js';
import { ConfirmationRequiredError, DeclinedError, NotFoundError, UsageError } from '../../../src/errors.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { fakeClient, fakeMcp, parseFlags } from '../../support/commands.js';
import { fakeCtx, fakeIo } from '../../support/fakes.js';
import { ScriptedPrompter } from '../../support/prompter.js';

const P1 = { id: 'p1', name: 'KRAS inhibitors', role: 'owner', created_at: '2026-01-02T03:04:05Z', brief: 'RAS pathway' };
const P2 = { id: 'p2', name: 'Fibrosis', role: 'viewer' };

describe('projects list: flags', () => {
  it('takes no arguments', async () => {
    expect(await parseFlags(list.build, [])).toEqual({ limit: undefined });
    await expect(parseFlags(list.build, ['extra'])).rejects.toThrow(/too many arguments|unknown/i);
    // gh's --limit works as typed (the habit needs no hint); 0 is refused before any request.
    expect(await parseFlags(list.build, ['--limit', '5'])).toEqual({ limit: 5 });
    await expect(parseFlags(list.build, ['--limit', '0'])).rejects.toThrow(/--limit must be an integer of at least 1/);
  });
});

describe('projects list: run', () => {
  it('tsv: every member, full timestamps', async () => {
    const io = fakeIo(false);
    const { client, calls } = fakeClient({ listProjects: async () => ({ projects: [P1, P2] }) });
    await list.run({}, fakeCtx(io, { format: 'tsv', client }));
    expect(calls).toEqual([{ method: 'listProjects', args: [] }]);
    expect(io.out()).toBe('KRAS inhibitors\towner\t2026-01-02T03:04:05Z\tp1\tRAS pathway\nFibrosis\tviewer\t\tp2\t\n');
    expect(io.err()).toBe('');
  });

  it('table: headers and the date only', async () => {
    const io = fakeIo(true);
    const { client } = fakeClient({ listProjects: async () => ({ projects: [P1] }) });
    await list.run({}, fakeCtx(io, { format: 'table', client }));
    expect(io.out()).toMatch(/NAME\s+ROLE\s+CREATED\s+ID\s+BRIEF\nKRAS inhibitors\s+owner\s+2026-01-02\s+p1\s+RAS pathway\n/);
  });

  it('json: the body as sent', async () => {
    const io = fakeIo(false);
    const { client } = fakeClient({ listProjects: async () => ({ projects: [P1] }) });
    await list.run({}, fakeCtx(io, { format: 'json', client }));
    expect(JSON.parse(io.out())).toEqual({ projects: [P1] });
  });

  it('none: how to make one, on stderr', async () => {
    const io = fakeIo(false);
    const { client } = fakeClient({ listProjects: async () => ({ projects: [] }) });
    await list.run({}, fakeCtx(io, { format: 'tsv', client }));
    expect(io.out()).toBe('');
    expect(io.err()).toMatch(/^No projects yet: create one with `rsi projects create --name NAME`\n$/);
  });
});

describe('projects create: flags', () => {
  const base = {
    name: 'X',
    brief: undefined,
    watchlist: undefined,
    operand: undefined,
    goals: [],
    primaryFilterType: undefined,
    openSetup: false,
  };
  function withStdin(text: string) {
    const io = fakeIo(false);
    io.stdinStream.end(text);
    return fakeCtx(io, 'tsv');
  }

  it.each([
    [['--name', 'X'], base],
    [['--name', '  X  ', '--brief', 'b', '--operand', 'or'], { ...base, brief: 'b', operand: '$or' }],
    [
      ['--name', 'X', '--goal', 'Target,modality', '--goal', 'target', '--primary-filter-type', 'keyword', '--open-setup'],
      { ...base, goals: ['target', 'modality'], primaryFilterType: 'keyword', openSetup: true },
    ],
  ])('%j → options', async (argv, expected) => {
    expect(await parseFlags(create.build, argv)).toEqual(expected);
  });

  it('--watchlist-file - reads names and scope items from stdin', async () => {
    const items = ['EGFR', { entity_id: 'e1', entity_type: 'keyword' }];
    const o = await parseFlags(
      create.build,
      ['--name', 'X', '--watchlist-file', '-', '--operand', 'and'],
      withStdin(JSON.stringify(items)),
    );
    expect(o).toEqual({ ...base, watchlist: items, operand: '$and' });
  });

  it('--brief-file - reads the brief from stdin', async () => {
    expect(await parseFlags(create.build, ['--name', 'X', '--brief-file', '-'], withStdin('The brief\n'))).toEqual({
      ...base,
      brief: 'The brief\n',
    });
  });

  it.each([
    [[], /--name is required/],
    [['--name', ' '], /--name must not be empty/],
    [['--name', 'x'.repeat(201)], /--name must be at most 200 characters/],
    [['--name', 'X', '--brief', 'a', '--brief-file', 'b'], /--brief and --brief-file cannot be used together/],
    [['--name', 'X', '--operand', 'xor'], /--operand must be one of and, or/],
    [['--name', 'X', '--goal', 'fame'], /--goal must be one of target, indication, modality/],
    [['--name', 'X', '--yes'], /--yes only applies with --from-brief/],
    [['--name', 'X', '--brief-file', '/nonexistent/brief.md'], /--brief-file: cannot read \/nonexistent\/brief.md: no such file/],
    [['--name', 'X', '--brief-file', '-', '--watchlist-file', '-'], /cannot both read stdin/],
  ])('%j → UsageError', async (argv, message) => {
    const error = await parseFlags(create.build, argv, withStdin('text')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });

  it.each([
    ['[{"entity_id": 1}]', /--watchlist-file: stdin: item 0/],
    ['{"not": "an array"}', /--watchlist-file: stdin: expected a JSON array/],
    ['[oops', /--watchlist-file: stdin is not valid JSON/],
    ['', /--watchlist-file: stdin is empty/],
  ])('--watchlist-file - with %j → UsageError', async (text, message) => {
    await expect(parseFlags(create.build, ['--name', 'X', '--watchlist-file', '-'], withStdin(text))).rejects.toThrow(message);
  });

  it('--from-brief: its file, the name, --yes and --open-setup', () => {
    expect(fromBriefOptions('b.md', { name: 'N', yes: true, openSetup: false })).toEqual({
      from: 'b.md',
      name: 'N',
      yes: true,
      openSetup: false,
    });
  });

  it.each([
    [['--from-brief', ' '], '--from-brief must not be empty'],
    [
      ['--from-brief', 'b.md', '--goal', 'target'],
      '--goal cannot be used with --from-brief (the brief and its matched scope come from the file)',
    ],
    [
      ['--from-brief', 'b.md', '--watchlist-file', 'w.json'],
      '--watchlist-file cannot be used with --from-brief (the brief and its matched scope come from the file)',
    ],
    [['--from-brief', 'b.md', '--if-absent'], '--if-absent cannot be used with --from-brief'],
    [['--from-brief', 'b.md', '--name', 'x'.repeat(201)], '--name must be at most 200 characters'],
    [['--name', 'X', '--yes'], '--yes only applies with --from-brief'],
  ])('%j → UsageError, before anything is read or sent', async (argv, message) => {
    await expect(parseFlags(create.build, argv)).rejects.toThrow(new UsageError(message));
  });
});

describe('projects create: run', () => {
  const created = { id: 'p9', name: 'KRAS landscape', role: 'owner', setup_url: 'https://rsi.example/p/p9/setup' };
  const opts: create.CreateOptions = {
    name: 'KRAS landscape',
    brief: 'b',
    watchlist: undefined,
    operand: '$or',
    goals: ['target'],
    primaryFilterType: undefined,
    openSetup: false,
  };

  it('tsv: the created row on stdout, the ✓ on stderr; only the given members are sent', async () => {
    const io = fakeIo(false);
    const { client, calls } = fakeClient({ createProject: async () => created, listProjects: async () => ({ projects: [] }) });
    await create.run(opts, fakeCtx(io, { format: 'tsv', client }));
    // The projects are read first, to warn about a name already in use.
    expect(calls).toEqual([
      { method: 'listProjects', args: [] },
      { method: 'createProject', args: [{ name: 'KRAS landscape', brief: 'b', operand: '$or', goals: ['target'] }] },
    ]);
    expect(io.out()).toBe('p9\tKRAS landscape\towner\thttps://rsi.example/p/p9/setup\t\n');
    expect(io.err()).toBe('✓ Created project KRAS landscape\n');
  });

  it('json: the reply alone, nothing on stderr', async () => {
    const io = fakeIo(false);
    const { client } = fakeClient({ createProject: async () => ({ ...created, scan_error: 'scan queue full' }) });
    await create.run(opts, fakeCtx(io, { format: 'json', client }));
    expect(JSON.parse(io.out())).toEqual({ ...created, scan_error: 'scan queue full' });
    expect(io.err()).toBe('warning: the initial scan did not start: scan queue full\n');
  });

  it('a scan_error with line breaks stays one warning line (a server cannot forge a line of rsi)', async () => {
    const io = fakeIo(false);
    const { client } = fakeClient({ createProject: async () => ({ ...created, scan_error: 'queue full\r\n\nrsi: forged' }) });
    await create.run(opts, fakeCtx(io, { format: 'json', client }));
    expect(io.err()).toBe('warning: the initial scan did not start: queue full rsi: forged\n');
  });

  it('table: id and setup URL, and the next step', async () => {
    const io = fakeIo(true);
    const { client } = fakeClient({ createProject: async () => created });
    await create.run(opts, fakeCtx(io, { format: 'table', client }));
    expect(io.out()).toMatch(/id\s+p9\nsetup_url\s+https:\/\/rsi\.example\/p\/p9\/setup\n/);
    expect(io.err()).toContain('Next: finish scoring setup at https://rsi.example/p/p9/setup, then `rsi status "KRAS landscape" --watch`');
  });

  it('watchlist: a name is resolved to a scope item; an unknown UUID is warned about and sent as given', async () => {
    const io = fakeIo(false);
    const EGFR = { id: '0b6f3c1e-1111-4111-8111-111111111111', name: 'EGFR', type: 'target', synonyms: [] };
    const unknown = { entity_id: '0b6f3c1e-9999-4999-8999-999999999999', entity_type: 'keyword', entity_name: 'Typo' };
    const { client, calls } = fakeClient({
      searchKeywords: async () => ({ data: [EGFR], meta: { page: 1, pageSize: 20, total: 1 } }),
      getKeyword: async (id: string) => {
        if (id === EGFR.id) return EGFR;
        throw new NotFoundError('no such keyword');
      },
      createProject: async () => created,
    });
    await create.run({ ...opts, watchlist: ['egfr', unknown] }, fakeCtx(io, { format: 'tsv', client }));
    expect(calls.at(-1)).toEqual({
      method: 'createProject',
      args: [
        {
          name: 'KRAS landscape',
          brief: 'b',
          operand: '$or',
          goals: ['target'],
          watchlist_items: [{ entity_id: EGFR.id, entity_type: 'target', entity_name: 'EGFR' }, unknown],
        },
      ],
    });
    expect(io.err()).toContain(`warning: watchlist item "Typo" (${unknown.entity_id}) is not a known keyword id; sent as given`);
  });

  it('a refused create prints nothing on stdout and goes up', async () => {
    const io = fakeIo(false);
    const { client } = fakeClient({ createProject: async () => Promise.reject(new UsageError('name taken')) });
    await expect(create.run(opts, fakeCtx(io, { format: 'tsv', client }))).rejects.toThrow('name taken');
    expect(io.out()).toBe('');
  });
});

describe('projects create --from-brief: run', () => {
  const TOOL: Tool = {
    name: 'create_project_from_brief',
    inputSchema: { type: 'object', properties: { brief: { type: 'string' }, name: { type: 'string' }, confirm: { type: 'boolean' } } },
  };
  const matched = [{ entity_id: 'e1', entity_type: 'target', entity_name: 'KRAS', matched_text: 'KRAS G12C' }];
  const project = {
    id: '0b6f3c1e-0009-4009-8009-000000000009',
    name: 'KRAS brief',
    role: 'owner',
    setup_url: 'https://rsi.example/p/p9/setup',
  };
  const answer = (_: string, args: Record<string, unknown>) => ({
    content: [],
    structuredContent: args.confirm
      ? { name: 'KRAS brief', matched, created: true, project }
      : { name: 'KRAS brief', matched, created: false },
  });
  let file = '';
  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rsi-brief-'));
    file = join(dir, 'brief.md');
    await writeFile(file, 'KRAS G12C in NSCLC\n');
  });

  it('--yes: a dry run, the matched scope on stderr, then confirm: true; tsv row on stdout', async () => {
    const io = fakeIo(false);
    const mcp = fakeMcp([TOOL], answer);
    await runFromBrief({ from: file, name: undefined, yes: true, openSetup: false }, fakeCtx(io, { format: 'tsv', mcp: async () => mcp }));
    expect(mcp.calls).toEqual([
      { name: TOOL.name, args: { brief: 'KRAS G12C in NSCLC\n', confirm: false } },
      { name: TOOL.name, args: { brief: 'KRAS G12C in NSCLC\n', confirm: true } },
    ]);
    expect(io.out()).toBe('0b6f3c1e-0009-4009-8009-000000000009\tKRAS brief\towner\thttps://rsi.example/p/p9/setup\t\n');
    expect(io.err()).toContain('The brief matches 1 scope item for the project "KRAS brief":');
    expect(io.err()).toContain('KRAS G12C');
    expect(io.err()).toContain('✓ Created project KRAS brief');
  });

  it('on a terminal the question is asked; yes creates, json prints the tool reply', async () => {
    const io = fakeIo(true);
    const prompter = new ScriptedPrompter([{ question: 'Create the project "KRAS brief" with this scope?', answer: true }]);
    await runFromBrief(
      { from: file, name: undefined, yes: false, openSetup: false },
      fakeCtx(io, { format: 'json', mcp: async () => fakeMcp([TOOL], answer), prompter }),
    );
    prompter.assertDone();
    expect(JSON.parse(io.out())).toEqual({ name: 'KRAS brief', matched, created: true, project });
  });

  it('no terminal and no --yes: exit 7, only the dry run was sent', async () => {
    const io = fakeIo(false);
    const mcp = fakeMcp([TOOL], answer);
    const error = await runFromBrief(
      { from: file, name: undefined, yes: false, openSetup: false },
      fakeCtx(io, { format: 'tsv', mcp: async () => mcp, prompter: new ScriptedPrompter() }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfirmationRequiredError);
    expect(mcp.calls.map((c) => c.args.confirm)).toEqual([false]);
    expect(io.out()).toBe('');
  });
  it('on a terminal, no is exit 7 "declined: nothing was created", only the dry run sent', async () => {
    const io = fakeIo(true);
    const mcp = fakeMcp([TOOL], answer);
    const prompter = new ScriptedPrompter([{ question: 'Create the project "KRAS brief" with this scope?', answer: false }]);
    const error = await runFromBrief(
      { from: file, name: undefined, yes: false, openSetup: false },
      fakeCtx(io, { format: 'tsv', mcp: async () => mcp, prompter }),
    ).catch((e: unknown) => e);
    prompter.assertDone();
    expect(error).toBeInstanceOf(DeclinedError);
    expect((error as DeclinedError).exitCode).toBe(7);
    expect((error as DeclinedError).message).toBe('declined: nothing was created');
    expect(mcp.calls.map((c) => c.args.confirm)).toEqual([false]);
    expect(io.out()).toBe('');
  });
});
