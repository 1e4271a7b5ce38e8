/**
 * What one request does NOT load or build (issues 24 and 45, docs/performance.md "Round 3"). Each check is
 * a probe preloaded into a real `rsi` process that records the expensive thing when it happens;
 * never a timing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundleModulesRun, bundlesRun } from '../support/coverage.js';
import { useSandbox } from '../support/e2e.js';

const e2e = useSandbox([], { process: true });

/**
 * A preload that logs every Intl.Segmenter and every `\p{RGI_Emoji}` expression built: what
 * `string-width` builds when it loads (~20–30 ms of CPU on Node 22 and 24).
 */
function widthProbe(): { env: Record<string, string>; seen: () => string } {
  const dir = mkdtempSync(join(tmpdir(), 'rsi-probe-'));
  const log = join(dir, 'built.txt');
  writeFileSync(log, '');
  writeFileSync(
    join(dir, 'probe.mjs'),
    [
      `import { appendFileSync } from 'node:fs';`,
      `const log = ${JSON.stringify(log)};`,
      `const Segmenter = Intl.Segmenter;`,
      `Intl.Segmenter = class extends Segmenter { constructor(...a) { appendFileSync(log, 'Segmenter\\n'); super(...a); } };`,
      `const RE = RegExp;`,
      `globalThis.RegExp = new Proxy(RE, { construct(t, a, nt) { if (String(a[0]).includes('RGI_Emoji')) appendFileSync(log, 'RGI_Emoji\\n'); return Reflect.construct(t, a, nt); } });`,
      '',
    ].join('\n'),
  );
  return {
    env: { NODE_OPTIONS: `--import=${pathToFileURL(join(dir, 'probe.mjs')).href}` },
    seen: () => readFileSync(log, 'utf8'),
  };
}

/**
 * A loader hook preloaded into rsi that logs the URL of every module it loads for which `keep`, a
 * JavaScript expression over `url` and `source` (the module's text), is true.
 */
function loadProbe(keep: string): { dir: string; env: { NODE_OPTIONS: string }; seen: () => string } {
  const dir = mkdtempSync(join(tmpdir(), 'rsi-probe-'));
  const log = join(dir, 'loaded.txt');
  writeFileSync(log, '');
  writeFileSync(
    join(dir, 'hooks.mjs'),
    [
      `import { appendFileSync } from 'node:fs';`,
      `export async function load(url, context, next) {`,
      `  const r = await next(url, context);`,
      `  const source = String(r.source);`,
      `  if (${keep}) appendFileSync(${JSON.stringify(log)}, url + '\\n');`,
      `  return r;`,
      `}`,
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'probe.mjs'),
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`,
  );
  return { dir, env: { NODE_OPTIONS: `--import=${pathToFileURL(join(dir, 'probe.mjs')).href}` }, seen: () => readFileSync(log, 'utf8') };
}

/** A real rsi run, with what it evaluated of the bundle (test/support/coverage.ts). */
async function evaluated(args: string[], env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'rsi-coverage-'));
  const r = await e2e.rsi(args, { env: { ...env, NODE_V8_COVERAGE: dir } });
  return { ...r, modules: bundleModulesRun(dir), bundles: bundlesRun(dir) };
}

/** The command words whose module a run evaluated (`src/commands/<word>/<word>.ts`). */
const commandsLoaded = (modules: string[]): string[] =>
  modules.flatMap((m) => /^src\/commands\/([^/]+)\/\1\.ts$/.exec(m)?.[1] ?? []).sort();

const BUNDLE = new URL('../../dist/rsi.cjs', import.meta.url);

describe('start-up cost of one request', () => {
  it('a JSON request never loads string-width; a table with wide text does', async () => {
    const probe = widthProbe();
    const plain = await e2e.rsi(['keywords', 'search', 'egfr', '--json'], { env: probe.env });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toContain('EGFR');
    expect(probe.seen()).toBe('');

    // The probe does see it when a width must be measured: a CJK project name in a table.
    await e2e.newProject('研究 startup probe', { setup: false });
    const wide = await e2e.rsi(['projects', 'list', '--format', 'table'], { env: probe.env });
    expect(wide.code, wide.stderr).toBe(0);
    expect(wide.stdout).toContain('研究');
    expect(probe.seen()).toContain('RGI_Emoji');
  });

  it('a request never loads Node’s http2 or crypto', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rsi-probe-'));
    const log = join(dir, 'modules.txt');
    writeFileSync(
      join(dir, 'probe.cjs'),
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(log)}, process.moduleLoadList.join('\\n')));\n`,
    );
    const r = await e2e.rsi(['keywords', 'search', 'egfr', '--json'], { env: { NODE_OPTIONS: `--require=${join(dir, 'probe.cjs')}` } });
    expect(r.code, r.stderr).toBe(0);
    const modules = readFileSync(log, 'utf8').split('\n');
    expect(modules).toContain('NativeModule net');
    expect(modules.filter((m) => /\bhttp2\b/.test(m))).toEqual([]);
    // Nor crypto: a hash is made only for the keychain.
    expect(modules.filter((m) => /\bcrypto\b/.test(m))).toEqual([]);
  });

  it("requests run on Node's own HTTP client: the bundle carries no undici, and a proxied request loads only the tunnel", async () => {
    // esbuild names each CommonJS package module it carries by its path (`"node_modules/undici/…"(exports, module)`).
    expect(readFileSync(BUNDLE, 'utf8')).not.toContain('"node_modules/undici/');
    const r = await evaluated(['keywords', 'search', 'egfr', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('EGFR');
    expect(r.modules.filter((m) => m.includes('undici'))).toEqual([]);

    // A SOCKS proxy (one nobody listens on: the request fails after loading the proxy path) goes
    // through rsi's own SOCKS5 handshake (src/http/tunnel.ts), as an HTTP proxy's CONNECT does:
    // still no undici, which rsi no longer bundles at all.
    const proxied = await evaluated(['doctor', '--json'], { RSI_BASE_URL: 'https://rsi.invalid', ALL_PROXY: 'socks5h://127.0.0.1:1' });
    expect(proxied.code).not.toBe(0);
    expect(proxied.modules.filter((m) => m.includes('undici'))).toEqual([]);
  });

  it('a request compiles dist/rsi.cjs, which has no MCP SDK nor sandbox server; the runs that use them compile dist/rsi-full.cjs', async () => {
    // What rsi.cjs leaves out (bundle.mjs, FULL_ONLY): its source map names none of it; the full one does.
    const sources = (name: string) =>
      (JSON.parse(readFileSync(new URL(`../../dist/${name}.map`, import.meta.url), 'utf8')) as { sources: string[] }).sources;
    const fullOnly = (list: string[]) =>
      list.filter((s) => !s.startsWith('rsi-full-only:') && /@modelcontextprotocol\/sdk\/|src\/sandbox\/(server|faults)\.ts$/.test(s));
    expect(fullOnly(sources('rsi.cjs'))).toEqual([]);
    expect(fullOnly(sources('rsi-full.cjs'))).toEqual(expect.arrayContaining(['../src/sandbox/server.ts', '../src/sandbox/faults.ts']));
    expect(fullOnly(sources('rsi-full.cjs')).length).toBeGreaterThan(20);

    const get = await evaluated(['keywords', 'search', 'egfr', '--json']);
    expect(get.code, get.stderr).toBe(0);
    expect(get.bundles).toEqual(['rsi.cjs']);
    // Each run that reaches the MCP SDK or the sandbox's server (src/exe/load.ts, needsFullBundle).
    for (const args of [
      ['scoreboard', '--help'],
      ['mcp', 'serve', '--help'],
      ['sandbox', '--help'],
      ['projects', 'create', 'x', '--from-brief', 'b', '--help'],
    ]) {
      const r = await evaluated(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.bundles, args.join(' ')).toEqual(['rsi-full.cjs']);
    }
  });

  it('what dist/rsi.cjs lacks fails there with an internal error, never silently', async () => {
    // Only a loader that ignored needsFullBundle could get there: dist/boot.cjs given no full bundle.
    const dir = mkdtempSync(join(tmpdir(), 'rsi-core-'));
    const script = join(dir, 'core-only.cjs');
    const dist = new URL('../../dist/', import.meta.url).pathname;
    writeFileSync(
      script,
      `require(${JSON.stringify(`${dist}boot.cjs`)}).boot({ dir: undefined, bundle: ${JSON.stringify(`${dist}rsi.cjs`)}, argv: process.argv.slice(2), words: ['sandbox'] });\n`,
    );
    const r = spawnSync(process.execPath, [script, 'sandbox', '--port', '0'], { encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('internal: src/sandbox/server.js is only in dist/rsi-full.cjs');
  });

  it('a request loads only its own command’s module; the root’s help lists every command and loads none', async () => {
    const r = await evaluated(['keywords', 'search', 'egfr', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(commandsLoaded(r.modules)).toEqual(['keywords']);

    const screen = await evaluated(['--help']);
    expect(screen.code, screen.stderr).toBe(0);
    expect(screen.stdout).toMatch(/^ {2}opportunities +show a project's scored opportunities/m);
    expect(commandsLoaded(screen.modules)).toEqual([]);

    const one = await evaluated(['help', 'keywords', 'search']);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toContain('Usage: rsi keywords search');
    expect(commandsLoaded(one.modules)).toEqual(['help', 'keywords']);

    // A completion script was rendered by the build: printing it loads completion alone.
    const bash = await evaluated(['completion', 'bash']);
    expect(bash.code, bash.stderr).toBe(0);
    expect(bash.stdout).toContain('_rsi_completion');
    expect(commandsLoaded(bash.modules)).toEqual(['completion']);

    // The probe does see every command where the whole tree is needed.
    const all = await evaluated(['help', 'reference']);
    expect(all.code).toBe(0);
    expect(commandsLoaded(all.modules)).toEqual(
      expect.arrayContaining(['analyses', 'keywords', 'login', 'mcp', 'projects', 'sandbox', 'status']),
    );
  });

  it('--version is answered without loading the bundle or opening the compile cache', async () => {
    const probe = loadProbe('true');
    const cache = join(probe.dir, 'cache');
    const env = { ...probe.env, XDG_CACHE_HOME: cache };
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const r = await e2e.rsi([flag], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(`${version}\n`);
    }
    expect(probe.seen()).toMatch(/bin\/rsi\.js/);
    expect(probe.seen()).not.toMatch(/dist\//);
    expect(existsSync(join(cache, 'rsi'))).toBe(false);

    // Anything else still goes through main (and its own --version answer is unchanged), and keeps
    // its code cache (test/journeys/code-cache.test.ts).
    const other = await e2e.rsi(['--version', '--json'], { env });
    expect(other.code === 0 || other.code === 2).toBe(true);
    expect(existsSync(join(cache, 'rsi', 'compile'))).toBe(true);
  });
});
