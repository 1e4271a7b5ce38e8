// Issue 40 item 3 and issue 42 item 1: one confirmation protocol (src/ops/confirm.ts) under both
// front-ends. A service that asks again after `confirmed: true` (or reports nothing created after
// `confirm: true`) has recorded nothing: `rsi analyses run`, `rsi projects create --from-brief` and
// `rsi mcp serve` all say so as an error, never "done". And a person confirms every write of the
// MCP server: a client without elicitation that repeats at once gets nothing sent.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { AnalysesResult, RunAnalysesBody } from '../../src/client/schemas.js';
import { run as runAnalysesCommand } from '../../src/commands/analyses/run/run.js';
import { runFromBrief } from '../../src/commands/projects/create/from-brief.js';
import { UnexpectedReplyError } from '../../src/errors.js';
import type { McpConnection } from '../../src/mcp/client.js';
import { fakeClient } from '../support/commands.js';
import { fakeCtx, fakeIo } from '../support/fakes.js';
import { ALPHA, data, EGFR, fakeApi, fakeRemote, ORIGIN, type Served, serve, text } from './mcp-tools.harness.js';

let s: Served | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const TOP = { type: 'target', limit: 2 } as const;
const QUESTION: AnalysesResult = {
  needs_confirmation: true,
  assumption: 'Run the top 2 targets.',
  signals: [{ keyword_id: EGFR, signal_keyword_id: 's1', name: 'EGFR' }],
};
/** The service that asks every time, `confirmed: true` or not, and runs nothing. */
const asksAgain = () => fakeApi({ runAnalyses: (): AnalysesResult => QUESTION });
const posts = (x: Served) => x.api.calls.filter((c) => c.method === 'runAnalyses').map((c) => c.args[1] as RunAnalysesBody);

const briefTool: Tool = { name: 'create_project_from_brief', inputSchema: { type: 'object', properties: { brief: {}, confirm: {} } } };
/** A brief tool that matches scope and never creates, `confirm: true` or not. */
const neverCreates = (): CallToolResult => ({
  structuredContent: { name: 'Kras', matched: [{ entity_id: 'e1', entity_type: 'target', entity_name: 'KRAS' }], created: false },
  content: [{ type: 'text', text: 'ok' }],
});

describe('a service that asks again after the confirmation: an error in every front-end', () => {
  it('rsi analyses run --yes: UnexpectedReplyError (exit 1), after exactly one confirmed POST', async () => {
    const bodies: RunAnalysesBody[] = [];
    const { client } = fakeClient({
      listProjects: async () => ({ projects: [{ id: ALPHA, name: 'Alpha', role: 'owner' }] }),
      runAnalyses: async (_id: string, body: RunAnalysesBody) => (bodies.push(body), QUESTION),
      // Read before the POST, to read a lost reply back (src/ops/writes.ts).
      getProjectStatus: async () => ({ signals_ready: true, scoring: 'not_started', summary: '', next: 'run_analyses', analyses: [] }),
    } as never);
    const io = fakeIo(false);
    const run = runAnalysesCommand(
      { project: 'Alpha', select: [], selectionsFrom: undefined, top: TOP, includeAnalysed: false, yes: true, wait: undefined },
      fakeCtx(io, { format: 'table', client }),
    );
    await expect(run).rejects.toThrow(UnexpectedReplyError);
    await expect(run).rejects.toThrow('asked for confirmation again after confirmed: true; nothing was run');
    expect(bodies.map((b) => b.confirmed === true)).toEqual([false, true]);
    expect(io.err()).not.toContain('✓ Started');
  });

  it('rsi projects create --from-brief --yes: UnexpectedReplyError when the confirmed call created nothing', async () => {
    const calls: Array<Record<string, unknown>> = [];
    const mcp: McpConnection = {
      server: { name: 'fake', version: '0' },
      listTools: async () => [briefTool],
      callTool: async (_name, args) => (calls.push(args), neverCreates()),
      close: async () => undefined,
    };
    const dir = mkdtempSync(join(tmpdir(), 'rsi-brief-'));
    writeFileSync(join(dir, 'brief.md'), 'KRAS in lung cancer');
    const io = fakeIo(false);
    const made = runFromBrief(
      { from: join(dir, 'brief.md'), name: undefined, yes: true, openSetup: false },
      fakeCtx(io, { format: 'table', mcp: async () => mcp }),
    );
    await expect(made).rejects.toThrow(/did not report a created project after confirm: true; nothing was created/);
    expect(calls.map((c) => c.confirm)).toEqual([false, true]);
    expect(io.err()).not.toContain('✓ Created');
  });

  it('rsi mcp serve, form elicitation accepted: a tool error, not "accepted … it was done"', async () => {
    s = await serve({
      allowWrite: true,
      api: asksAgain(),
      capabilities: { elicitation: { form: {} } },
      elicit: () => ({ action: 'accept' }),
    });
    const r = await s.call('run_analyses', { project: ALPHA, top: TOP });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('asked for confirmation again after confirmed: true; nothing was run');
    expect(text(r)).not.toMatch(/accepted|it was done/);
    // The request asked about first, then the service's question, read again after the yes, then sent confirmed.
    expect(posts(s).map((b) => b.confirmed === true)).toEqual([false, false, true]);
  });

  it('rsi mcp serve --confirm-in-chat, an identical repeat: a tool error, not "confirmed"', async () => {
    s = await serve({ allowWrite: true, confirmInChat: true, api: asksAgain() });
    expect(data(await s.call('run_analyses', { project: ALPHA, top: TOP })).rsi_confirmation).toBe('asked');
    // The yes to the request sends it; the service asks which signals: that question goes back too.
    expect(data(await s.call('run_analyses', { project: ALPHA, top: TOP, confirmed: true })).rsi_confirmation).toBe('asked');
    const r = await s.call('run_analyses', { project: ALPHA, top: TOP, confirmed: true });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('nothing was run');
    expect(text(r)).not.toContain('Done as the user confirmed');
  });

  it('rsi mcp serve, a brief accepted but never created: a tool error', async () => {
    const remote = fakeRemote([briefTool], neverCreates);
    s = await serve({
      allowWrite: true,
      remote: remote.deps,
      signIns: { now: { baseUrl: ORIGIN, mcp: {} } },
      capabilities: { elicitation: { form: {} } },
      elicit: () => ({ action: 'accept' }),
    });
    const r = await s.call('create_project_from_brief', { brief: 'KRAS' });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain('did not report a created project after confirm: true');
    // The dry run, read again after the yes, then the call that creates.
    expect(remote.calls.map((c) => c.args.confirm)).toEqual([false, false, true]);
  });
});

describe('a person confirms every write of rsi mcp serve', () => {
  it('an SDK client without elicitation that repeats at once gets 0 runs, and the rsi command to run', async () => {
    s = await serve({
      allowWrite: true,
      api: fakeApi({ runAnalyses: (_id: string, b: RunAnalysesBody) => (b.confirmed ? { runs: [] } : QUESTION) }),
    });
    const args = { project: "Alpha's -x", top: { ...TOP, therapeutic_area: 'lung cancer' } };
    const first = await s.call('run_analyses', args);
    const repeat = await s.call('run_analyses', { ...args, confirmed: true });
    for (const r of [first, repeat]) {
      expect(r.isError).toBe(true);
      expect(text(r)).toContain('run_analyses changes data, so a person must confirm it');
      expect(text(r)).toContain('nothing was sent');
      // Built from words by shellQuote (the fence keeps its `"` as written): pasted into a shell, it is the same request.
      expect(text(r)).toContain(
        `<service-data tool="run_analyses" part="command">\nrsi analyses run --top 2 --type target --therapeutic-area "lung cancer" "Alpha's -x"\n</service-data>`,
      );
    }
    expect(posts(s)).toEqual([]);
    expect(s.api.calls).toEqual([]);
  });

  it('create_project and create_project_from_brief alike: refused, nothing sent', async () => {
    const remote = fakeRemote([briefTool], neverCreates);
    s = await serve({ allowWrite: true, remote: remote.deps, signIns: { now: { baseUrl: ORIGIN, api: {}, mcp: {} } } });
    for (const confirmed of [undefined, true]) {
      const made = await s.call('create_project', { name: 'Beta', ...(confirmed ? { confirmed } : {}) });
      expect(text(made)).toContain('create_project changes data, so a person must confirm it');
      expect(text(made)).toContain('rsi projects create --name Beta');
      const briefed = await s.call('create_project_from_brief', { brief: 'KRAS', ...(confirmed ? { confirmed } : {}) });
      expect(text(briefed)).toContain('rsi projects create --from-brief brief.md');
    }
    expect(s.api.calls).toEqual([]);
    expect(remote.calls).toEqual([]);
  });
});
