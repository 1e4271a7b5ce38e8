// The single executable (dist/exe/rsi-linux-x64, docs/install.md) used as a person without Node
// would: every run of it has a PATH with no `node` on it, and its "browser" is curl. It serves the
// sandbox the other rsi talks to, signs in with the real Secret Service (its keychain addon comes
// out of the binary), runs the README's first session and `mcp serve` for the SDK client, and
// prints byte for byte what bin/rsi.js prints for the same commands. The cross-built arm64 binary
// runs under qemu-user. The proxy/TLS test of issue 19 runs it too: the binary's own `sandbox
// --tls` under a name only a CONNECT proxy resolves, signed in to and walked through that proxy.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, cleanEnv, runCli, CHILD_BOUND_MS } from '../support/cli.js';
import { EXE, exePart, exePath, pathWithoutNode } from '../support/exe.js';
import { startPrivateKeyring, type PrivateKeyring } from '../support/keyring.js';
import * as z from 'zod/mini';
import * as S from '../../src/client/schemas.js';
import { obtainTokens } from '../support/oauth.js';
import { startProxy, tracedRequests, type TestProxy } from '../support/proxy.js';
import { firstSession } from '../support/readme.js';
import { sandboxFetch, startSandbox, type SandboxProcess } from '../support/sandbox.js';
import { keyringPart, ranOnceThisRun, skipWithout } from '../support/system.js';
import { startStub } from '../support/stub-server.js';

const skip = ranOnceThisRun('the single executable (Linux x64 and arm64)') || skipWithout(exePart());
const noKeyring = skip || skipWithout(keyringPart());
const PKG = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string; version: string };

const work = mkdtempSync(join(tmpdir(), 'rsi-exe-'));
/** Programs the shell lines use; `node` is not one of them, and the folder has none. */
const NO_NODE = pathWithoutNode(['sh', 'bash', 'curl', 'jq', 'cat', 'sleep', 'grep', 'sed', 'head', 'ls', 'rm', 'mkdir']);
/** A folder where `rsi` is the binary, first on a node-less PATH. */
const rsiDir = join(work, 'rsi-bin');
mkdirSync(rsiDir);
symlinkSync(EXE, join(rsiDir, 'rsi'));
const PATH = `${rsiDir}:${NO_NODE}`;
/** A browser without Node: follows the authorization redirects to rsi's loopback callback. */
const BROWSER = join(work, 'browser.sh');
const curl = spawnSync('sh', ['-c', 'command -v curl'], { encoding: 'utf8' }).stdout.trim();
writeFileSync(BROWSER, `#!/bin/sh\nexec ${curl} -sS -L --max-redirs 20 -o /dev/null "$1"\n`);
chmodSync(BROWSER, 0o755);
/** Where the binary may write its keychain addon: checked empty afterwards. */
const privateTmp = join(work, 'tmp');
mkdirSync(privateTmp, { mode: 0o700 });

/** The binary, run with the node-less PATH. */
function exe(args: readonly string[], env: Record<string, string | undefined> = {}, input?: string): Promise<CliResult> {
  return runCli(args, { bin: EXE, env: { PATH, TMPDIR: privateTmp, ...env }, input });
}

let sandbox: SandboxProcess;
let token: string;
beforeAll(async () => {
  if (skip) return;
  // The sandbox every test here talks to is the binary's own.
  sandbox = await startSandbox(['--auto-approve', '--quiet'], { bin: EXE, env: { PATH } });
  token = (await obtainTokens(sandbox.url)).access_token;
});
afterAll(async () => {
  await sandbox?.stop();
  rmSync(work, { recursive: true, force: true });
  rmSync(dirname(NO_NODE), { recursive: true, force: true });
});

describe.skipIf(skip)('the single executable, with no node on PATH', () => {
  it('really has no node to lean on', () => {
    const r = spawnSync('/bin/sh', ['-c', 'command -v node || echo none'], { env: { PATH }, encoding: 'utf8' });
    expect(r.stdout.trim()).toBe('none');
  });

  it('--version is the package version', async () => {
    const r = await exe(['--version']);
    expect(r).toMatchObject({ code: 0, stdout: `${PKG.version}\n`, stderr: '' });
  });

  it('has its licence notices beside it: the bundled packages, the keychain addon, jq, Oniguruma and Node', () => {
    const text = readFileSync(`${EXE}.THIRD-PARTY-NOTICES.txt`, 'utf8');
    for (const head of [/^commander \S+ \(MIT\)$/m, /^open \S+ \(MIT\)$/m, /^@napi-rs\/keyring-linux-x64-gnu \S+ \(MIT\)$/m])
      expect(text).toMatch(head);
    expect(text).toMatch(/^jq \(in jq\.wasm\) 1\.8\.2 /m);
    expect(text).toMatch(/^Oniguruma \(in jq\.wasm\) /m);
    // Node's own LICENSE, from the Node package the binary was made of.
    expect(text).toMatch(/^Node\.js 26\.\d+\.\d+ \(MIT and others\)\n=+\n\nNode\.js is licensed for use as follows:/m);
  });

  it('has its SBOM beside it, from the same list as its notices: every part, Node by its CPE', () => {
    const notices = readFileSync(`${EXE}.THIRD-PARTY-NOTICES.txt`, 'utf8');
    const listed = [...notices.split(/^={78}$/m)[0]!.matchAll(/^- (.+) (\S+) \((.+)\)$/gm)].map((m) => `${m[1]} ${m[2]}`).sort();
    const sbom = JSON.parse(readFileSync(`${EXE}.sbom.cdx.json`, 'utf8')) as {
      metadata: { component: { name: string; version: string } };
      components: { group?: string; name: string; version: string; cpe?: string }[];
    };
    expect(sbom.metadata.component).toMatchObject({ name: 'rsi-linux-x64', version: PKG.version });
    expect(sbom.components.map((c) => `${c.group ? `${c.group}/` : ''}${c.name} ${c.version}`).sort()).toEqual(listed);
    expect(sbom.components.find((c) => c.name === 'Node.js')?.cpe).toMatch(/^cpe:2\.3:a:nodejs:node\.js:26\./);
  });

  it("is a release: its update check asks once for the package's dist-tags, at the registry ~/.npmrc names", async () => {
    const registry = await startStub((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"latest":"9.9.9"}');
    });
    try {
      const home = join(work, 'update-home');
      mkdirSync(home, { recursive: true });
      writeFileSync(join(home, '.npmrc'), `registry=${registry.url}/\n`);
      const r = await exe(['__update-check'], { HOME: home, XDG_CACHE_HOME: join(work, 'update-cache') });
      expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
      expect(registry.requests.map((q) => q.url)).toEqual([`/-/package/${PKG.name.replace('/', '%2f')}/dist-tags`]);
      expect(JSON.parse(readFileSync(join(work, 'update-cache', 'rsi', 'update-check.json'), 'utf8'))).toMatchObject({ latest: '9.9.9' });
    } finally {
      await registry.close();
    }
  });

  it('doctor says it is the single executable, with the Node built into it', async () => {
    const r = await exe(['doctor', '--json'], { RSI_CONFIG_DIR: join(work, 'doctor-config') });
    const [about, node] = JSON.parse(r.stdout) as { name: string; detail: string }[];
    expect(about).toEqual({ name: 'rsi', ok: true, detail: `${PKG.name} ${PKG.version}, single executable ${EXE}` });
    expect(node).toEqual({ name: 'Node.js', ok: true, detail: expect.stringMatching(/^v26\.\d+\.\d+ \(built into the executable\)$/) });
  });

  it("starts with its SEA config's young generation: one GET runs no scavenge, takes the trained code cache, and NODE_OPTIONS still applies", async () => {
    // A preload through NODE_OPTIONS (it runs at all only if the binary still honours it): the
    // process's Node options, whether V8 took the bundle's cache (src/exe/load.ts compiles it with
    // node:vm's Script, read when it compiles) and the collections the run made.
    const preload = join(work, 'young-generation.cjs');
    const report = join(work, 'young-generation.json');
    writeFileSync(
      preload,
      `const vm = require('node:vm');
const seen = { execArgv: process.execArgv, cachedDataRejected: [], gc: [] };
const Script = vm.Script;
vm.Script = class extends Script {
  constructor(source, options) {
    super(source, options);
    if (options?.cachedData) seen.cachedDataRejected.push(this.cachedDataRejected);
  }
};
new (require('node:perf_hooks').PerformanceObserver)((list) => {
  for (const e of list.getEntries()) seen.gc.push(e.detail.kind);
}).observe({ entryTypes: ['gc'] });
process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(report)}, JSON.stringify(seen)));
`,
    );
    const r = await exe(['keywords', 'search', 'egfr', '--json'], {
      RSI_TOKEN: token,
      RSI_BASE_URL: sandbox.url,
      RSI_CONFIG_DIR: join(work, 'young-generation'),
      NODE_OPTIONS: `--require ${preload}`,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ data: [expect.objectContaining({ name: 'EGFR' })] });
    const seen = JSON.parse(readFileSync(report, 'utf8')) as { execArgv: string[]; cachedDataRejected: boolean[]; gc: number[] };
    // The SEA config's execArgv (src/build/exe.mjs, SEA_EXEC_ARGV); NODE_OPTIONS is not in it.
    const config = JSON.parse(readFileSync(join(dirname(EXE), 'linux-x64', 'sea-config.json'), 'utf8')) as { execArgv: string[] };
    expect(config.execArgv).toContainEqual(expect.stringMatching(/^--min-semi-space-size=\d+$/));
    expect(seen.execArgv).toEqual(config.execArgv);
    // A rejected cache would cost the start-up the training saves (docs/performance.md).
    expect(seen.cachedDataRejected).toEqual([false]);
    // The young generation holds all one GET allocates: no collection at all (V8's default 1 MB paid two).
    expect(seen.gc).toEqual([]);

    // A run that needs the full bundle (src/exe/load.ts, needsFullBundle) takes its own trained cache.
    const full = await exe(['scoreboard', '--help'], {
      RSI_CONFIG_DIR: join(work, 'young-generation'),
      NODE_OPTIONS: `--require ${preload}`,
    });
    expect(full.code, full.stderr).toBe(0);
    expect(full.stdout).toContain('Usage: rsi scoreboard');
    expect((JSON.parse(readFileSync(report, 'utf8')) as { cachedDataRejected: boolean[] }).cachedDataRejected).toEqual([false]);
  });

  // Each command with the file's token, once through the binary and once through bin/rsi.js.
  const SAME = [
    ['--version'],
    ['--help'],
    ['keywords', '--help'],
    ['help', 'analyses', 'run'],
    ['keywords', 'search', 'egfr'],
    ['keywords', 'search', 'egfr', '--json'],
    ['keywords', 'get', 'EGFR', '--include', 'indications,sponsors'],
    ['keywords', 'relations', 'NSCLC', '--relation', 'assets', '--all', '--format', 'csv'],
    ['keywords', 'relations', 'KRAS', '--relation', 'sponsors', '--limit', '5', '--format', 'tsv'],
    // --jq runs jq's wasm engine, which the binary carries as a SEA asset (no dist/jq.wasm beside it).
    ['keywords', 'search', 'egfr', '--jq', '.data[0].name'],
    ['projects', 'list', '--jq', '.projects[] | {name, id}'],
    ['keywords', 'relations', 'NSCLC', '--relation', 'assets', '--all', '--jq', 'length'],
    ['keywords', 'search', 'egfr', '--jq', '.data[] | select('],
    ['keywords', 'relations', 'NSCLC', '--relation', 'assets', '--all', '--fields', 'id,name', '--format', 'csv'],
    ['projects', 'list', '--fields', 'name', '--json'],
    ['projects', 'list'],
    ['projects', 'list', '--format', 'ndjson'],
    ['opportunities', 'Oncology watchlist'],
    ['signals', 'KRAS inhibitors', '--json'],
    ['completion', 'bash'],
    ['projects', 'get', 'no-such-project'],
    ['keywords', 'search'],
    ['no-such-command'],
  ];
  it.each(SAME.map((args) => [args.join(' '), args] as const))('prints what bin/rsi.js prints: rsi %s', async (_, args) => {
    const env = { RSI_TOKEN: token, RSI_BASE_URL: sandbox.url, RSI_CONFIG_DIR: join(work, 'same') };
    const [fromExe, fromJs] = await Promise.all([exe(args, env), runCli(args, { env })]);
    expect(fromExe.stdout).toBe(fromJs.stdout);
    expect(fromExe.stderr).toBe(fromJs.stderr);
    expect(fromExe.code).toBe(fromJs.code);
  });

  it('runs the README’s first session with `rsi` being the binary', async () => {
    const port = await freePort();
    const home = mkdtempSync(join(work, 'readme-'));
    const session = firstSession().join('\n').replaceAll(':8765', `:${port}`).replaceAll('--port 8765', `--port ${port}`);
    const script = `trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
trap 'echo "README line failed: $BASH_COMMAND" >&2' ERR
command -v node && exit 99
${session}
echo "README session complete" >&2`;
    const r = await bash(script, home, {
      HOME: home,
      PATH,
      TMPDIR: privateTmp,
      RSI_CONFIG_DIR: join(home, 'config'),
      RSI_CREDENTIAL_STORE: 'file',
      BROWSER,
    });
    expect(r.stderr).not.toContain('README line failed');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('README session complete');
    expect(r.stderr).toContain('✓ Signed in to');
    expect(r.stderr).toMatch(/✓ Started \d+ analys[ie]s for "My first project"/);
    expect(readFileSync(join(home, 'assets.csv'), 'utf8').split('\n').length).toBeGreaterThan(2);
  });

  it('opens the browser with the system’s xdg-open when $BROWSER is unset (`open` bundled inside)', async () => {
    // An xdg-open first on PATH that records its call and follows the redirects like a browser.
    const bin = mkdtempSync(join(work, 'xdg-'));
    const called = join(bin, 'called');
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\necho "$1" > ${called}\nexec ${BROWSER} "$1"\n`);
    chmodSync(join(bin, 'xdg-open'), 0o755);
    const folder = join(work, 'xdg-login');
    const r = await runCli(['login', '--base-url', sandbox.url, '--insecure-storage'], {
      bin: EXE,
      // A display, as on a desktop: without one rsi does not try the system's browser (issue 19).
      env: { PATH: `${bin}:${PATH}`, TMPDIR: privateTmp, RSI_CONFIG_DIR: folder, DISPLAY: ':0' },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(called, 'utf8')).toMatch(new RegExp(`^${sandbox.url}/oauth/authorize\\?`));
    expect(existsSync(join(folder, 'credentials.json'))).toBe(true);
  });

  it('serves MCP to the SDK client, with the same tools and answers as bin/rsi.js', async () => {
    const env = { RSI_BASE_URL: sandbox.url, RSI_TOKEN: token, RSI_CONFIG_DIR: join(work, 'mcp') };
    const connect = async (command: string, args: string[], extra: Record<string, string>) => {
      const client = new Client({ name: 'rsi-exe-e2e', version: '0' });
      await client.connect(
        new StdioClientTransport({ command, args, env: cleanEnv({ ...env, ...extra }) as Record<string, string>, stderr: 'pipe' }),
      );
      return client;
    };
    const [fromExe, fromJs] = await Promise.all([
      connect(EXE, ['mcp', 'serve'], { PATH, TMPDIR: privateTmp }),
      connect(process.execPath, [join(import.meta.dirname, '../../bin/rsi.js'), 'mcp', 'serve'], {}),
    ]);
    try {
      expect(fromExe.getServerVersion()).toEqual(fromJs.getServerVersion());
      expect((await fromExe.listTools()).tools).toEqual((await fromJs.listTools()).tools);
      const call = { name: 'get_keyword', arguments: { keyword: 'HER1' } };
      const [a, b] = (await Promise.all([fromExe.callTool(call), fromJs.callTool(call)])) as CallToolResult[];
      expect((a!.structuredContent as { name: string }).name).toBe('EGFR');
      expect(a).toEqual(b);
    } finally {
      await Promise.all([fromExe.close(), fromJs.close()]);
    }
  });
});

describe.skipIf(noKeyring)('the single executable and the Secret Service', () => {
  let keyring: PrivateKeyring;
  const dir = join(work, 'keychain');
  beforeAll(async () => {
    keyring = await startPrivateKeyring();
  });
  afterAll(async () => {
    await keyring?.stop();
  });
  const env = (extra: Record<string, string> = {}) => ({ RSI_CONFIG_DIR: dir, ...keyring.env, ...extra });

  it('login keeps the tokens in the keychain through the embedded addon, and leaves no addon file behind', async () => {
    const runtime = join(keyring.home, 'run');
    const r = await exe(['login', '--base-url', sandbox.url], env({ BROWSER, XDG_RUNTIME_DIR: runtime }));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('OS keychain');
    const lookup = spawnSync('secret-tool', ['search', '--all', 'service', `rsi:${sandbox.url}`], {
      env: { ...process.env, ...keyring.env },
      encoding: 'utf8',
    });
    expect(lookup.stdout + lookup.stderr).toMatch(/default:access@/);
    expect(readdirSync(runtime).filter((f) => f.startsWith('rsi-keyring-'))).toEqual([]);
    expect(readdirSync(privateTmp).filter((f) => f.startsWith('rsi-keyring-'))).toEqual([]);
  });

  it('commands use the keychain token, and bin/rsi.js reads the same entries', async () => {
    for (const args of [
      ['projects', 'list', '--json'],
      ['auth', 'status'],
    ]) {
      const [fromExe, fromJs] = await Promise.all([exe(args, env()), runCli(args, { env: env() })]);
      expect(fromExe.code, fromExe.stderr).toBe(0);
      expect(fromExe.stdout).toBe(fromJs.stdout);
      expect(fromExe.stderr).toBe(fromJs.stderr);
    }
  });

  it('without a Secret Service it fails as bin/rsi.js does, and --insecure-storage signs in', async () => {
    // A session bus nobody serves: the keychain cannot be reached at all.
    const gone = { DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(work, 'no-bus')}` };
    const folder = join(work, 'no-keychain');
    const args = ['login', '--base-url', sandbox.url];
    const noUrl = (text: string) => text.replace(/https?:\/\/\S+/g, 'URL');
    const [fromExe, fromJs] = await Promise.all([
      exe(args, { RSI_CONFIG_DIR: `${folder}-exe`, BROWSER, ...gone }),
      runCli(args, { env: { RSI_CONFIG_DIR: `${folder}-js`, BROWSER, ...gone } }),
    ]);
    expect(fromExe.code).not.toBe(0);
    expect(fromExe.code).toBe(fromJs.code);
    expect(noUrl(fromExe.stderr)).toBe(noUrl(fromJs.stderr).replaceAll(`${folder}-js`, `${folder}-exe`));
    expect(fromExe.stderr).toContain('--insecure-storage');
    const insecure = await exe([...args, '--insecure-storage'], { RSI_CONFIG_DIR: `${folder}-exe`, BROWSER, ...gone });
    expect(insecure.code, insecure.stderr).toBe(0);
    expect(existsSync(join(`${folder}-exe`, 'credentials.json'))).toBe(true);
  });
});

// Issue 19's proxy/TLS test with the binary: its own `sandbox --tls --public-host rsi.test`, a real
// CONNECT proxy with credentials that alone resolves rsi.test, the sandbox's CA trusted through
// NODE_EXTRA_CA_CERTS. A request that bypassed the proxy could not even resolve the host, and each
// run's --debug trace must show every request going through it (undici's ProxyAgent and CONNECT
// code, imported lazily by src/http/network.ts, are inside the binary's one script).
describe.skipIf(skip)('the single executable through a CONNECT proxy to sandbox --tls', () => {
  let tls: SandboxProcess;
  let proxy: TestProxy;
  const dir = join(work, 'tls');
  const browser = join(work, 'tls-browser.sh');
  beforeAll(async () => {
    [tls, proxy] = await Promise.all([
      startSandbox(['--auto-approve', '--quiet', '--tls', '--public-host', 'rsi.test'], { bin: EXE, env: { PATH } }),
      startProxy({ credentials: { user: 'dave', password: 'tunnel-pa55' }, hosts: { 'rsi.test': '127.0.0.1' } }),
    ]);
    // The browser is not what is under test: curl reaching rsi.test directly, trusting the CA.
    const { hostname, port } = new URL(tls.url);
    writeFileSync(
      browser,
      `#!/bin/sh\nexec ${curl} -sS -L --max-redirs 20 --noproxy '*' --cacert ${tls.caFile} --resolve ${hostname}:${port}:127.0.0.1 -o /dev/null "$1"\n`,
    );
    chmodSync(browser, 0o755);
  });
  afterAll(async () => {
    await Promise.all([tls?.stop(), proxy?.stop()]);
  });
  const env = () => ({
    RSI_CONFIG_DIR: dir,
    RSI_CREDENTIAL_STORE: 'file',
    RSI_BASE_URL: tls.url,
    BROWSER: browser,
    NODE_EXTRA_CA_CERTS: tls.caFile!,
    HTTPS_PROXY: proxy.url.replace('//', '//dave:tunnel-pa55@'),
  });

  /** Runs `--debug …` (the binary, or bin/rsi.js when `js`) and checks the proxy carried every request of it. */
  async function throughProxy(args: readonly string[], js = false): Promise<CliResult> {
    const before = proxy.hits.length;
    const r = js ? await runCli(['--debug', ...args], { env: env() }) : await exe(['--debug', ...args], env());
    const traced = tracedRequests(r.stderr);
    expect(traced.length, r.stderr).toBeGreaterThan(0);
    expect(traced.filter(([, proxied]) => !proxied)).toEqual([]);
    expect(proxy.hits.length, `${args.join(' ')} opened no tunnel`).toBeGreaterThan(before);
    expect(proxy.hits.slice(before).every((h) => h.method === 'CONNECT' && h.target === new URL(tls.url).host)).toBe(true);
    expect(r.stderr + r.stdout).not.toContain('tunnel-pa55');
    return r;
  }

  it('signs in: discovery, registration and the token exchange all through the tunnel', async () => {
    expect(tls.url).toMatch(/^https:\/\/rsi\.test:\d+$/);
    const r = await throughProxy(['login', '--base-url', tls.url]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Signed in to ${tls.url}`);
    const kinds = tracedRequests(r.stderr).map(([request]) => request.replace(/^(\w+) https:\/\/rsi\.test:\d+/, '$1 '));
    expect(kinds).toEqual(
      expect.arrayContaining([
        'GET /.well-known/oauth-protected-resource/api/v1',
        'GET /.well-known/oauth-authorization-server',
        'POST /oauth/register',
        'POST /oauth/token',
      ]),
    );
  });

  it('keywords relations NSCLC --relation assets --all: every page through the proxy, byte for byte what bin/rsi.js prints', async () => {
    const args = ['keywords', 'relations', 'NSCLC', '--relation', 'assets', '--all', '--json'];
    const fromExe = await throughProxy(args);
    expect(fromExe.code, fromExe.stderr).toBe(0);
    const pages = tracedRequests(fromExe.stderr).filter(([request]) => /^GET \S+\/relations$/.test(request));
    expect(pages.length).toBeGreaterThan(1);
    const fromJs = await throughProxy(args, true);
    expect(fromExe.stdout).toBe(fromJs.stdout);
    // Every row the API has, checked past the proxy by the sandbox's loopback address.
    const stored = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')) as Record<string, { accessToken?: string }>;
    const token = Object.values(stored).find((v) => v.accessToken)?.accessToken;
    const reach = sandboxFetch(tls.url);
    const get = async (path: string) =>
      (await reach.fetch(`${reach.base}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } })).json() as Promise<unknown>;
    const keyword = S.KeywordSearchPage().parse(await get('/keywords?q=NSCLC&limit=1')).data[0]!.id;
    const truth = S.RelationPage().parse(await get(`/keywords/${keyword}/relations?relation=assets&limit=1`)).meta.total;
    const items = z.array(S.RelationItem()).parse(JSON.parse(fromExe.stdout));
    expect(truth).toBeGreaterThan(100);
    expect(items).toHaveLength(truth);
    expect(new Set(items.map((i) => i.id)).size).toBe(truth);
  });
});

// The Linux arm64 binary is cross-built (no code cache) on this x64 machine; qemu-user runs it
// with Debian's arm64 libraries, so its embedded Node and its own arm64 keychain addon are shown to work.
const ARM64 = exePath('linux-arm64');
const SYSROOT = '/usr/aarch64-linux-gnu';
const QEMU = spawnSync('sh', ['-c', 'command -v qemu-aarch64'], { encoding: 'utf8' }).stdout.trim();
const skipArm64 =
  skip ||
  noKeyring ||
  skipWithout({
    name: 'qemu-user with arm64 libraries',
    available: Boolean(QEMU) && existsSync(join(SYSROOT, 'lib', 'libatomic.so.1')) && existsSync(join(SYSROOT, 'lib', 'libstdc++.so.6')),
    reason: 'apt-get install qemu-user libc6-arm64-cross libstdc++6-arm64-cross libatomic1-arm64-cross libgcc-s1-arm64-cross',
  }) ||
  skipWithout(exePart('linux-arm64'));

describe.skipIf(skipArm64)('the cross-built Linux arm64 binary, under qemu-user', () => {
  let keyring: PrivateKeyring;
  beforeAll(async () => {
    keyring = await startPrivateKeyring();
  });
  afterAll(async () => {
    await keyring?.stop();
  });
  const run = (args: readonly string[], env: Record<string, string | undefined>) =>
    runCli(['-L', SYSROOT, ARM64, ...args], { bin: QEMU, env: { PATH, TMPDIR: privateTmp, ...env } });

  it('prints what bin/rsi.js prints', async () => {
    const env = { RSI_TOKEN: token, RSI_BASE_URL: sandbox.url, RSI_CONFIG_DIR: join(work, 'arm64-same') };
    for (const args of [['--version'], ['keywords', 'search', 'egfr', '--json'], ['projects', 'list']]) {
      const [fromArm, fromJs] = await Promise.all([run(args, env), runCli(args, { env })]);
      expect(fromArm.stdout, fromArm.stderr).toBe(fromJs.stdout);
      expect(fromArm.code).toBe(fromJs.code);
    }
  });

  it('signs in with the Secret Service through its own arm64 keychain addon', async () => {
    const r = await run(['login', '--base-url', sandbox.url], { RSI_CONFIG_DIR: join(work, 'arm64-keychain'), BROWSER, ...keyring.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('OS keychain');
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** bash -e -o pipefail with exactly this environment (no inherited PATH, so no node). */
function bash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const bashPath = spawnSync('sh', ['-c', 'command -v bash'], { encoding: 'utf8' }).stdout.trim();
    const child = spawn(bashPath, ['--noprofile', '--norc', '-e', '-o', 'pipefail', '-c', script], {
      cwd,
      env: cleanEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), CHILD_BOUND_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
