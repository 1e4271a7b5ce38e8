// Retries that match the protocol (issue 46.4), as a real rsi process meets them. A 429 says the
// request was not processed, so a POST goes again after the wait (and the service records one
// project, not zero or two); a POST whose outcome is unknown (it timed out after it was sent, or
// its reply was cut) is never repeated: rsi reads the project list back (src/ops/writes.ts), and
// when that fails too (these faults hit every API reply) it is exit 8 with the command that checks.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { obtainTokens } from '../support/oauth.js';
import { sandboxStats } from '../support/sandbox.js';
import { type InProcessSandbox, startSandbox } from '../support/inproc.js';

const FAULTS = ['rate-limit', 'hang', 'reset'] as const;
type Fault = (typeof FAULTS)[number];
const sandboxes = new Map<Fault, { sb: InProcessSandbox; token: string }>();
const CREATE = 'POST /api/v1/projects';
const UNKNOWN = /^hint: check with `rsi projects list --jq '\.projects\[\] \| select\(\.name == "[^"]+"\)'` before running it again$/m;

beforeAll(async () => {
  await Promise.all(
    FAULTS.map(async (fault) => {
      const sb = await startSandbox(['--auto-approve', '--quiet', '--fault', fault]);
      sandboxes.set(fault, { sb, token: (await obtainTokens(sb.url)).access_token });
    }),
  );
});
afterAll(async () => {
  await Promise.all([...sandboxes.values()].map(({ sb }) => sb.stop()));
});

function rsi(fault: Fault, args: string[]) {
  const { sb, token } = sandboxes.get(fault)!;
  return runCli(args, { env: { RSI_TOKEN: token, RSI_BASE_URL: sb.url, RSI_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'rsi-post-')) } });
}
const posts = async (fault: Fault) => (await sandboxStats(sandboxes.get(fault)!.sb.url)).byRoute[CREATE] ?? 0;

describe.concurrent('a POST meets a rate limit, a hang, a cut reply', () => {
  it('429 with Retry-After on projects create: waits, sends it again, one project is created, exit 0', async ({ expect }) => {
    const r = await rsi('rate-limit', ['projects', 'create', '--name', 'Rate limited', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).name).toBe('Rate limited');
    // The 429 and the retry that created it.
    expect(await posts('rate-limit')).toBe(2);
    const list = await rsi('rate-limit', ['projects', 'list', '--json']);
    const named = (JSON.parse(list.stdout).projects as { name: string }[]).filter((p) => p.name === 'Rate limited');
    expect(named).toHaveLength(1);
  });

  it('a POST that times out after it was sent: exit 8, sent once, the outcome unknown and the command that checks', async ({ expect }) => {
    const r = await rsi('hang', ['projects', 'create', '--name', 'Hung', '--http-timeout', '1']);
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toMatch(
      /^rsi: POST https?:\/\/[^ ]+\/api\/v1\/projects timed out after 1 s; whether the creation of the project "Hung" happened is unknown: reading the service back failed too/m,
    );
    expect(r.stderr).toMatch(UNKNOWN);
    expect(await posts('hang')).toBe(1);
  });

  it('a POST whose reply is cut: exit 8, sent once, the outcome unknown and the command that checks', async ({ expect }) => {
    const r = await rsi('reset', ['projects', 'create', '--name', 'Cut off']);
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toMatch(UNKNOWN);
    expect(await posts('reset')).toBe(1);
  });
});
