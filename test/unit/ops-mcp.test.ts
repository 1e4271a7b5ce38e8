// The MCP-only use cases (src/ops/mcp-tools.ts, scoreboard.ts, from-brief.ts) against a fake
// session: finding the service's tool by name, its failures, and the brief's dry run → ask → create.
import { describe, expect, it } from 'vitest';
import { ForbiddenError, ServiceUnavailableError, UnexpectedReplyError, WriteOutcomeError } from '../../src/errors.js';
import { type BriefReadBack, createFromBrief, sendBrief } from '../../src/ops/from-brief.js';
import { confirmedByReadingBack } from '../../src/ops/writes.js';
import { type McpTools, requireTool, ToolError, type ToolInfo, type ToolResult } from '../../src/ops/mcp-tools.js';
import { readScoreboard } from '../../src/ops/scoreboard.js';

const P = '11111111-1111-4111-8111-111111111111';
const K = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';

/** A session offering `tools`, answering each call from `answer`; every call is recorded. */
function session(tools: ToolInfo[], answer: (name: string, args: Record<string, unknown>) => ToolResult) {
  const calls: Array<[string, Record<string, unknown>]> = [];
  const mcp: McpTools = {
    listTools: async () => tools,
    callTool: async (name, args) => {
      calls.push([name, args]);
      return answer(name, args);
    },
  };
  return { mcp, calls };
}

const tool = (name: string, ...props: string[]): ToolInfo => ({
  name,
  inputSchema: { type: 'object', properties: Object.fromEntries(props.map((p) => [p, {}])) },
});

describe('ops/mcp-tools: requireTool', () => {
  it('finds the first known name the server offers', async () => {
    const { mcp } = session([tool('other'), tool('scoreboard')], () => ({}));
    expect((await requireTool(mcp, ['project_scoreboard', 'scoreboard'], 'scoreboard')).name).toBe('scoreboard');
  });

  it('says which names it looked for and which tools there are', async () => {
    const { mcp } = session([tool('other')], () => ({}));
    const err = await requireTool(mcp, ['project_scoreboard'], 'scoreboard').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnexpectedReplyError);
    expect((err as UnexpectedReplyError).hint).toMatch(/^its tools: other /);
  });
});

describe('ops/scoreboard: readScoreboard', () => {
  it('calls the tool with the project id and the limit, and parses the reply', async () => {
    const raw = { total: 1, scoreboard: [{ rank: 1, name: 'KRAS', keyword_id: K, score: 54.4, extra: 'kept' }] };
    const { mcp, calls } = session([tool('project_scoreboard', 'project_id', 'limit')], () => ({ structuredContent: raw }));
    const board = await readScoreboard(mcp, { projectId: P, limit: 5 });
    expect(calls).toEqual([['project_scoreboard', { project_id: P, limit: 5 }]]);
    expect(board).toEqual({ tool: 'project_scoreboard', raw, board: raw });
  });

  it('turns the tool’s own failure into a typed error (a missing scope names it)', async () => {
    const { mcp } = session([tool('scoreboard')], () => ({
      isError: true,
      content: [{ type: 'text', text: 'insufficient_scope: needs service:read' }],
    }));
    const err = await readScoreboard(mcp, { projectId: P }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ForbiddenError);
    const { mcp: broken } = session([tool('scoreboard')], () => ({ isError: true, content: [{ type: 'text', text: 'boom' }] }));
    await expect(readScoreboard(broken, { projectId: P })).rejects.toBeInstanceOf(ToolError);
  });

  it('names the field of a reply that does not fit', async () => {
    const { mcp } = session([tool('scoreboard')], () => ({ structuredContent: { scoreboard: [{ rank: 'first' }] } }));
    await expect(readScoreboard(mcp, { projectId: P })).rejects.toThrow(/scoreboard\.0\.rank/);
  });
});

describe('ops/from-brief: createFromBrief', () => {
  const matched = [{ entity_id: K, entity_type: 'target', entity_name: 'KRAS' }];
  const project = { id: P, name: 'KRAS', role: 'owner', setup_url: 'https://svc.test/setup' };
  const briefTool = tool('create_project_from_brief', 'brief', 'name', 'confirm');

  it('dry-runs, asks with the matched scope, then creates with confirm: true', async () => {
    const { mcp, calls } = session([briefTool], (_n, args) => ({
      structuredContent: args.confirm ? { matched, created: true, project } : { name: 'KRAS', matched, created: false },
    }));
    const seen: unknown[] = [];
    const outcome = await createFromBrief(
      mcp,
      { brief: 'KRAS in lung', name: 'KRAS' },
      { confirm: async (dry) => (seen.push(dry.reply.matched), true) },
    );
    expect(seen).toEqual([matched]);
    expect(calls).toEqual([
      ['create_project_from_brief', { brief: 'KRAS in lung', name: 'KRAS', confirm: false }],
      ['create_project_from_brief', { brief: 'KRAS in lung', name: 'KRAS', confirm: true }],
    ]);
    expect(outcome).toMatchObject({ outcome: 'created', project });
  });

  it('creates nothing on a no, and asks nobody when nothing matched', async () => {
    const { mcp, calls } = session([briefTool], () => ({ structuredContent: { matched, created: false } }));
    expect(await createFromBrief(mcp, { brief: 'b' }, { confirm: async () => false })).toMatchObject({ outcome: 'declined' });
    expect(calls).toHaveLength(1);
    const empty = session([briefTool], () => ({ structuredContent: { matched: [], created: false } }));
    let asked = false;
    expect(await createFromBrief(empty.mcp, { brief: 'b' }, { confirm: async () => (asked = true) })).toMatchObject({
      outcome: 'no_match',
    });
    expect(asked).toBe(false);
  });

  it('refuses a brief tool without the arguments rsi sends, and a confirmed call that created nothing', async () => {
    const odd = session([tool('create_project_from_brief', 'text')], () => ({}));
    await expect(createFromBrief(odd.mcp, { brief: 'b' }, { confirm: async () => true })).rejects.toThrow(/it takes: text/);
    const lazy = session([briefTool], () => ({ structuredContent: { matched, created: false } }));
    await expect(createFromBrief(lazy.mcp, { brief: 'b' }, { confirm: async () => true })).rejects.toThrow(
      /did not report a created project/,
    );
  });

  describe('the confirmed call is sent once; a lost reply is read back from the project list', () => {
    const OLD = '22222222-2222-4222-8222-222222222222';
    /** The service: its projects, a brief tool whose confirmed call records and then loses its reply. */
    function lossy(options: { records: boolean; listAfter?: 'fails' }) {
      const projects = [{ id: OLD, name: 'KRAS', role: 'owner' as const }];
      let creates = 0;
      let lost = false;
      const { mcp, calls } = session([briefTool], (_n, args) => {
        if (!args.confirm) return { structuredContent: { name: 'KRAS', matched, created: false } };
        creates += 1;
        if (options.records) projects.push({ id: P, name: 'KRAS', role: 'owner' as const });
        lost = true;
        throw new ServiceUnavailableError('cannot reach the service (POST https://svc.test/mcp): the connection was closed unexpectedly');
      });
      const readBack: BriefReadBack = {
        projects: async () => ({
          listProjects: async () => {
            if (lost && options.listAfter === 'fails') throw new ServiceUnavailableError('cannot reach the service (GET /projects)');
            return { projects: [...projects] };
          },
          setupUrl: (id: string) => `https://svc.test/projects/${id}/overview?setup=1`,
        }),
      };
      return { mcp, calls, readBack, creates: () => creates };
    }

    it('recorded: the new project (not the older one of the same name), found by reading back', async () => {
      const svc = lossy({ records: true });
      const outcome = await createFromBrief(svc.mcp, { brief: 'KRAS in lung' }, { confirm: async () => true, readBack: svc.readBack });
      expect(svc.creates()).toBe(1);
      expect(outcome).toMatchObject({ outcome: 'created', project: { id: P, name: 'KRAS', setup_url: expect.stringContaining(P) } });
      if (outcome.outcome !== 'created') throw new Error('not created');
      expect(confirmedByReadingBack(outcome.done)).toBe(true);
      expect(outcome.raw).toMatchObject({ created: true, matched, project: { id: P } });
    });

    it('not recorded: not done, said so, with the failure’s exit code', async () => {
      const svc = lossy({ records: false });
      const err = await createFromBrief(svc.mcp, { brief: 'b' }, { confirm: async () => true, readBack: svc.readBack }).catch((e) => e);
      expect(svc.creates()).toBe(1);
      expect(err).toBeInstanceOf(WriteOutcomeError);
      expect(err).toMatchObject({ outcome: 'not_done', exitCode: 8 });
      expect(err.message).toMatch(/reading the service back shows the creation of the project "KRAS" did not happen/);
    });

    it('the read-back fails too: unknown (exit 8), with the command that checks', async () => {
      const svc = lossy({ records: true, listAfter: 'fails' });
      const err = await createFromBrief(svc.mcp, { brief: 'b' }, { confirm: async () => true, readBack: svc.readBack }).catch((e) => e);
      expect(svc.creates()).toBe(1);
      expect(err).toMatchObject({ outcome: 'unknown', exitCode: 8, code: 'outcome_unknown' });
      expect(err.hint).toBe(`check with \`rsi projects list --jq '.projects[] | select(.name == "KRAS")'\` before running it again`);
    });
  });

  it('sendBrief passes on what the service said, created or not (the MCP gate judges it)', async () => {
    const { mcp, calls } = session([], () => ({ structuredContent: { matched, created: false } }));
    expect(await sendBrief(mcp, 'project_from_brief', { brief: 'b' }, true)).toEqual({
      raw: { matched, created: false },
      reply: { matched, created: false },
    });
    expect(calls).toEqual([['project_from_brief', { brief: 'b', confirm: true }]]);
  });
});
