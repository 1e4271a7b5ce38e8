// The tools that call the service's own MCP server, in process against a fake session of it:
// listed while there is an MCP sign-in (with projects:write for the brief), the service's tool found
// by name, its reply checked, the brief gated like every write, and failures said, fenced.
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ALPHA, data, fakeRemote, links, ORIGIN, type Served, serve, text } from './mcp-tools.harness.js';

let s: Served | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const tool = (name: string): Tool => ({
  name,
  inputSchema: { type: 'object', properties: { brief: { type: 'string' }, confirm: { type: 'boolean' } } },
});
const ok = (structuredContent: Record<string, unknown>): CallToolResult => ({ structuredContent, content: [{ type: 'text', text: 'ok' }] });
const SCOREBOARD = { total: 1, scoreboard: [{ rank: 1, name: 'KRAS', score: 0.9 }] };
const matched = [{ entity_id: 'e1', entity_type: 'target', entity_name: 'KRAS' }];
const brief = (args: Record<string, unknown>) =>
  ok(
    args.confirm
      ? {
          name: 'Kras',
          matched,
          created: true,
          project: { id: ALPHA, name: 'Kras', role: 'owner', setup_url: `${ORIGIN}/projects/${ALPHA}/overview?setup=1` },
        }
      : { name: 'Kras', matched, created: false },
  );
const names = async (x: Served) => (await x.client.listTools()).tools.map((t) => t.name);

describe('project_scoreboard', () => {
  it('listed only with an MCP sign-in; calls the service tool found by name; one tools/list per session', async () => {
    const remote = fakeRemote([tool('get_scoreboard')], () => ok(SCOREBOARD));
    const signIns = { now: { baseUrl: ORIGIN } as { baseUrl: string; mcp?: { scopes?: string[] } } };
    s = await serve({ remote: remote.deps, signIns });
    expect(await names(s)).not.toContain('project_scoreboard');
    signIns.now = { baseUrl: ORIGIN, mcp: { scopes: ['service:read'] } };
    const changed = s.nextListChange();
    await s.call('list_projects');
    await changed;
    expect(await names(s)).toContain('project_scoreboard');

    const r = await s.call('project_scoreboard', { project: ALPHA, limit: 5 });
    expect(data(r).scoreboard[0].name).toBe('KRAS');
    // The project's page, as project_status, list_signals and list_opportunities link it.
    expect(r.content.filter((c) => c.type === 'resource_link')).toEqual([
      expect.objectContaining({ type: 'resource_link', uri: `${ORIGIN}/projects/${ALPHA}/overview`, name: 'project' }),
    ]);
    // A name goes through the API first.
    await s.call('project_scoreboard', { project: 'Alpha' });
    expect(remote.calls).toEqual([
      { name: 'get_scoreboard', args: { project_id: ALPHA, limit: 5 } },
      { name: 'get_scoreboard', args: { project_id: ALPHA } },
    ]);
    expect(s.api.calls.map((c) => c.method)).toEqual(['listProjects', 'listProjects']);
  });

  it("a service without a scoreboard tool, a tool error and a reply that does not fit are rsi's errors, fenced", async () => {
    const none = fakeRemote([tool('other')], () => ok({}));
    s = await serve({ remote: none.deps, signIns: { now: { baseUrl: ORIGIN, mcp: {} } } });
    expect(text(await s.call('project_scoreboard', { project: ALPHA }))).toContain(
      "the service's MCP server offers no scoreboard tool (looked for project_scoreboard, scoreboard, get_scoreboard)",
    );
    await s.close();

    const failing = fakeRemote([tool('project_scoreboard')], () => ({ isError: true, content: [{ type: 'text', text: '<i>no</i>' }] }));
    s = await serve({ remote: failing.deps, signIns: { now: { baseUrl: ORIGIN, mcp: {} } } });
    const r = await s.call('project_scoreboard', { project: ALPHA });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/<service-data tool="project_scoreboard" part="error">\nthe tool project_scoreboard failed: &lt;i&gt;no/);
    // The tool answered: the session is sound.
    expect(failing.resets()).toBe(0);
    await s.close();

    const odd = fakeRemote([tool('project_scoreboard')], () => ok({ scoreboard: 'no' }));
    s = await serve({ remote: odd.deps, signIns: { now: { baseUrl: ORIGIN, mcp: {} } } });
    expect((await s.call('project_scoreboard', { project: ALPHA })).isError).toBe(true);
  });

  it('a session that broke is dropped for the next call; a cancelled call is no broken session', async () => {
    let fail = true;
    const remote = fakeRemote([tool('project_scoreboard')], () => {
      if (fail) throw new Error('connection reset');
      return ok(SCOREBOARD);
    });
    s = await serve({ remote: remote.deps, signIns: { now: { baseUrl: ORIGIN, mcp: {} } } });
    expect((await s.call('project_scoreboard', { project: ALPHA })).isError).toBe(true);
    expect(remote.resets()).toBe(1);
    fail = false;
    expect((await s.call('project_scoreboard', { project: ALPHA })).isError).toBeFalsy();
  });
});

describe('create_project_from_brief', () => {
  const mcp = (scopes?: string[]) => ({ now: { baseUrl: ORIGIN, mcp: { scopes } } });

  it('offered with --allow-write and an MCP sign-in holding projects:write', async () => {
    const remote = fakeRemote([tool('create_project_from_brief')], (_n, a) => brief(a));
    s = await serve({ remote: remote.deps, signIns: mcp(['projects:write']) });
    expect(await names(s)).not.toContain('create_project_from_brief');
    await s.close();
    s = await serve({ allowWrite: true, remote: remote.deps, signIns: mcp(['service:read']) });
    expect(await names(s)).not.toContain('create_project_from_brief');
    await s.close();
    s = await serve({ allowWrite: true, confirmInChat: true, remote: remote.deps, signIns: mcp(['service:read', 'projects:write']) });
    expect(await names(s)).toContain('create_project_from_brief');
    expect(s.client.getInstructions()).toContain('create_project, run_analyses, create_project_from_brief change data');
  });

  it('--confirm-in-chat without elicitation: nothing is created until an identical repeat', async () => {
    const remote = fakeRemote([tool('project_from_brief')], (_n, a) => brief(a));
    s = await serve({ allowWrite: true, confirmInChat: true, remote: remote.deps, signIns: mcp(undefined) });
    const first = await s.call('create_project_from_brief', { brief: 'KRAS in lung cancer' });
    expect(data(first)).toMatchObject({ created: false, rsi_confirmation: 'asked' });
    expect(text(first)).toMatch(/part="question">\nCreate the project "Kras" with 1 scope item: KRAS \(target\)\?/);
    const done = await s.call('create_project_from_brief', { brief: 'KRAS in lung cancer', confirmed: true });
    expect(data(done)).toMatchObject({ created: true, rsi_confirmation: 'confirmed' });
    expect(links(done)).toEqual([`${ORIGIN}/projects/${ALPHA}/overview?setup=1`, `${ORIGIN}/projects/${ALPHA}/overview`]);
    expect(remote.calls.map((c) => c.args.confirm)).toEqual([false, false, true]);
  });

  it('declined through form elicitation: nothing is created', async () => {
    const remote = fakeRemote([tool('create_project_from_brief')], (_n, a) => brief(a));
    s = await serve({
      allowWrite: true,
      remote: remote.deps,
      signIns: mcp(undefined),
      capabilities: { elicitation: { form: {} } },
      elicit: () => ({ action: 'decline' }),
    });
    const r = await s.call('create_project_from_brief', { brief: 'KRAS', name: 'K' });
    expect(data(r).rsi_confirmation).toBe('declined');
    expect(remote.calls).toEqual([{ name: 'create_project_from_brief', args: { brief: 'KRAS', name: 'K', confirm: false } }]);
  });

  it('accepted through form elicitation: shown exactly what is sent, the scope read again after the yes, asked again when it changed', async () => {
    let dry = 0;
    const shifting = (a: Record<string, unknown>) =>
      a.confirm || dry++ === 0
        ? brief(a)
        : ok({ name: 'Kras', matched: [...matched, { entity_id: 'e2', entity_type: 'disease', entity_name: 'NSCLC' }], created: false });
    const remote = fakeRemote([tool('create_project_from_brief')], (_n, a) => shifting(a));
    s = await serve({
      allowWrite: true,
      remote: remote.deps,
      signIns: mcp(undefined),
      capabilities: { elicitation: { form: {} } },
      elicit: () => ({ action: 'accept' }),
    });
    const r = await s.call('create_project_from_brief', { brief: 'KRAS in lung cancer', name: 'Kras' });
    expect(data(r)).toMatchObject({ created: true, rsi_confirmation: 'accepted' });
    expect(s.elicited).toHaveLength(2);
    expect(s.elicited[0]!.message).toContain(
      `with 1 scope item: KRAS (target)? If you agree, rsi sends the service's create_project_from_brief tool: {"brief":"KRAS in lung cancer","name":"Kras","confirm":true}.`,
    );
    expect(s.elicited[1]!.message).toMatch(/^What create_project_from_brief would do changed since you were asked/);
    expect(s.elicited[1]!.message).toContain('with 2 scope items: KRAS (target), NSCLC (disease)?');
    expect(remote.calls.map((c) => c.args.confirm)).toEqual([false, false, false, true]);
  });

  it('a brief that matches nothing is not asked about', async () => {
    const remote = fakeRemote([tool('create_project_from_brief')], () => ok({ matched: [], created: false }));
    s = await serve({ allowWrite: true, confirmInChat: true, remote: remote.deps, signIns: mcp(undefined) });
    const r = await s.call('create_project_from_brief', { brief: 'nothing here' });
    expect(data(r).rsi_confirmation).toBeUndefined();
    expect(text(r)).toContain('No scope item was found in the brief');
  });
});
