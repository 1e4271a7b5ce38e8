import { beforeAll, describe, expect, it } from 'vitest';
import { obtainTokens } from '../support/oauth.js';
import { useSandbox } from '../support/e2e.js';
import { sandboxStats } from '../support/sandbox.js';

interface Signal {
  keyword_id: string;
  signal_keyword_id: string;
}

const e2e = useSandbox(['--time-scale', '50'], { quiet: false });

function rsi(args: string[], options: { input?: string; as?: string } = {}) {
  return e2e.rsi(args, options);
}

/** A new project through the API; with `setup`, its scoring setup finished and its scan done. */
async function newProject(name: string, setup = true): Promise<string> {
  const id = await e2e.newProject(name, { setup });
  if (setup) {
    const watched = await rsi(['status', id, '--watch', '--interval', '0.1', '--json']);
    expect(watched.code, watched.stderr).toBe(0);
  }
  return id;
}

async function signalsOf(project: string): Promise<Signal[]> {
  const r = await rsi(['signals', project, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { signals: Signal[] }).signals;
}

const runs = async () => (await sandboxStats(e2e.url)).runs;

// The projects the tests run analyses on, made before the tests and side by side: each waits about
// a second for its scan, and the tests count runs and requests at the sandbox, so none of this may
// overlap them.
const PREPARED = ['Confirmed with --yes', 'Chosen with --select', 'Piped selections', 'Run and wait'] as const;
const prepared = new Map<(typeof PREPARED)[number], string>();
beforeAll(async () => {
  await Promise.all(PREPARED.map(async (name) => prepared.set(name, await newProject(name))));
});
const project = (name: (typeof PREPARED)[number]): string => prepared.get(name)!;

describe('confirmation', () => {
  it('without a terminal and without --yes: exit 7, the reply on stdout with --json, nothing run', async () => {
    const before = await runs();
    const r = await rsi(['analyses', 'run', 'KRAS inhibitors', '--top', '3', '--type', 'target', '--json']);
    expect(r.code, r.stderr).toBe(7);
    expect(JSON.parse(r.stdout)).toMatchObject({ needs_confirmation: true });
    expect(r.stderr).toMatch(/^hint: .*--yes/m);
    expect(await runs()).toBe(before);
  });

  it('without --json: the details and the reason on stderr, nothing on stdout', async () => {
    const r = await rsi(['analyses', 'run', 'KRAS inhibitors', '--top', '2', '--type', 'target']);
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('The service asks you to confirm');
  });

  it('--yes confirms and records the runs', async () => {
    const id = project('Confirmed with --yes');
    const before = await runs();
    const r = await rsi(['analyses', 'run', id, '--top', '2', '--type', 'target', '--yes', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { runs: unknown[] };
    expect(result.runs.length).toBeGreaterThan(0);
    expect(await runs()).toBe(before + result.runs.length);
  });
});

describe('explicit selections', () => {
  it('--select runs the chosen signals and prints the runs', async () => {
    const id = project('Chosen with --select');
    const [a, b] = await signalsOf(id);
    const before = await runs();
    const r = await rsi([
      'analyses',
      'run',
      id,
      '--json',
      '--select',
      `${a!.keyword_id}:${a!.signal_keyword_id}`,
      '--select',
      `${b!.keyword_id}:${b!.signal_keyword_id}`,
    ]);
    expect(r.code, r.stderr).toBe(0);
    // The runs the service recorded are on stdout, one per chosen signal that was not skipped.
    const reply = JSON.parse(r.stdout) as { runs: Array<{ id: string }>; skipped?: unknown[] };
    expect(reply.runs.length).toBeGreaterThan(0);
    expect(reply.runs.length + (reply.skipped?.length ?? 0)).toBe(2);
    expect(await runs()).toBeGreaterThan(before);
  });

  it('--selections - takes what `rsi signals --json | jq` produces', async () => {
    const id = project('Piped selections');
    const signals = await signalsOf(id);
    // jq '[.signals[:3][] | {keyword_id, signal_keyword_id}]'
    const picked = signals.slice(0, 3).map(({ keyword_id, signal_keyword_id }) => ({ keyword_id, signal_keyword_id }));
    const before = await runs();
    const r = await rsi(['analyses', 'run', id, '--selections', '-', '--json'], { input: JSON.stringify(picked) });
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { runs: Array<{ keyword_id: string }>; skipped: unknown[] };
    expect(result.runs.length + result.skipped.length).toBeGreaterThan(0);
    expect(await runs()).toBe(before + result.runs.length);
  });

  it('bad --selections input is a usage error before any request', async () => {
    const before = await sandboxStats(e2e.url);
    const r = await rsi(['analyses', 'run', 'KRAS inhibitors', '--selections', '-'], { input: '{"nope": true}' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^rsi: --selections: stdin must hold an array/m);
    expect((await sandboxStats(e2e.url)).apiRequests).toBe(before.apiRequests);
  });
});

describe('refusals', () => {
  it('setup missing: exit 6 and the message shows the setup URL', async () => {
    // Seeded: scan done, setup missing.
    const list = (await (await fetch(`${e2e.url}/api/v1/projects`, { headers: { authorization: `Bearer ${e2e.token}` } })).json()) as {
      projects: Array<{ id: string; name: string }>;
    };
    const id = list.projects.find((p) => p.name === 'Immunology pipeline')!.id;
    const before = await runs();
    const r = await rsi(['analyses', 'run', 'Immunology pipeline', '--top', '2', '--type', 'target', '--yes']);
    expect(r.code, r.stderr).toBe(6);
    expect(r.stderr).toContain(`${e2e.url}/projects/${id}/overview?setup=1`);
    expect(await runs()).toBe(before);
  });

  it('a viewer may not run analyses: exit 4', async () => {
    const r = await rsi(['analyses', 'run', 'Fibrosis landscape', '--top', '2', '--type', 'target', '--yes']);
    expect(r.code, r.stderr).toBe(4);
  });

  it('without the analyses:run scope: exit 4 naming the scope', async () => {
    const readOnly = (await obtainTokens(e2e.url, { scopes: ['service:read'] })).access_token;
    const r = await rsi(['analyses', 'run', 'KRAS inhibitors', '--top', '2', '--type', 'target', '--yes'], { as: readOnly });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain('analyses:run');
  });

  it('flag errors: exit 2 before any request', async () => {
    expect((await rsi(['analyses', 'run', 'KRAS inhibitors'])).code).toBe(2);
    expect((await rsi(['analyses', 'run', 'KRAS inhibitors', '--top', '101', '--type', 'target'])).stderr).toMatch(
      /--top must be a whole number from 1 to 100/,
    );
  });
});

describe('--wait', () => {
  it('with --json prints the AnalysesResult, then ProjectStatus lines until scoring is done', async () => {
    const id = project('Run and wait');
    const r = await rsi(['analyses', 'run', id, '--top', '2', '--type', 'target', '--yes', '--wait', '--interval', '0.1', '--json']);
    expect([0, 10], r.stderr).toContain(r.code);
    const [result, ...statuses] = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(result).toHaveProperty('runs');
    expect(statuses.length).toBeGreaterThan(0);
    const final = statuses.at(-1)!;
    expect(final.next).not.toBe('wait');
    expect(final.scoring).toBe('done');
    const failed = (final.analyses as Array<{ status: string }>).some((a) => a.status === 'failed');
    expect(r.code).toBe(failed ? 10 : 0);
  });
});
