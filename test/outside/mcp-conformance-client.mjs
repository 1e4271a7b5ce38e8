#!/usr/bin/env node
// rsi as the client under test of the official MCP conformance suite (@modelcontextprotocol/
// conformance): the suite starts a scenario's servers on loopback and runs this script with the MCP
// server's URL as the last argument and the scenario's name in MCP_CONFORMANCE_SCENARIO. It does
// what a person at a terminal does, with the built rsi (dist/rsi-full.cjs, which holds the MCP SDK, made by `npm run build`) and
// nothing else:
//
//   rsi login --resource mcp      (discovery, registration, PKCE; the "browser" is
//                                  test/support/fake-browser.sh, which follows the redirects of the
//                                  suite's auto-approving authorization server to rsi's listener)
//   rsi mcp call <tool>           (the scenario's tool)
//
// and, when the call fails with exit 4 and a hint naming an `rsi login … --resource mcp …`
// command, it runs that very command and calls again: the suite's step-up scenarios check that
// following rsi's hint asks for the right scopes, and that rsi never sends anyone round for ever.
// Each run has its own config folder and the 0600 file store, so nothing touches the person's
// sign-ins or keychain.
//
// Each `rsi …` runs in this process, one after the other, as `main({argv, env, stdio})` of the
// bundle bin/rsi.js loads (as test/support/inproc.ts runs it): the same arguments and environment a
// spawned rsi got, stdin empty and closed, stdout and stderr streams that are not a terminal (kept,
// and echoed here for the suite). A process per run cost a Node start and a bundle load each, 2 or
// 3 a scenario: the file's CPU went from 44 s to 26 s. What a real process adds (bin/rsi.js,
// signals, start-up) is tested elsewhere (test/e2e, test/journeys). The bundle's modules load once
// and stay: proper-lockfile, at its first lock, listens to the signals (signal-exit, which still
// ends the process on them) and patches fs.close (graceful-fs), for this process's life.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { MUST_PASS, NOT_APPLICABLE, SUITE_DEFECTS } from './mcp-conformance-scenarios.mjs';

/** The built bundle (never src/: this script is plain Node, run by the suite). */
const BUNDLE = new URL('../../dist/rsi-full.cjs', import.meta.url);
const FAKE_BROWSER = fileURLToPath(new URL('../support/fake-browser.sh', import.meta.url));
/** The Client ID Metadata Document URL the suite's `auth/basic-cimd` server expects to see. */
const CIMD_URL = 'https://conformance-test.local/client-metadata.json';
/** Hints followed before giving up: rsi's own bound is what the suite checks; this one only stops a runaway. */
const MAX_HINTS = 3;

const serverUrl = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}');
const base = new URL(serverUrl).origin;
const dir = mkdtempSync(join(tmpdir(), 'rsi-conformance-'));
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('RSI_'))),
  RSI_CONFIG_DIR: dir,
  RSI_CREDENTIAL_STORE: 'file',
  RSI_BASE_URL: base,
  RSI_NO_UPDATE_NOTIFIER: '1',
  // The suite runs every scenario at once (mcp-conformance.test.ts): on a busy 2-core machine a
  // sign-in's requests can wait longer than rsi's default 30 s deadline, which is not what any
  // scenario is about. Only a bound for a server that never answers.
  RSI_HTTP_TIMEOUT: '240',
  BROWSER: `"${FAKE_BROWSER}"`,
};

/**
 * A pipe's end as rsi sees it: each write is kept and goes on to `echo` as it comes. Done at once,
 * as test/support/inproc.ts's Capture is: waiting for `echo`'s callback would leave rsi's last
 * writes (its hint) queued here when main() returns, and missing from text().
 */
class Tee extends Writable {
  #chunks = [];
  constructor(echo) {
    super();
    this.echo = echo;
  }
  _write(chunk, encoding, done) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk;
    this.#chunks.push(bytes);
    this.echo.write(bytes);
    done();
  }
  /** Read back as UTF-8 at the end: a character split across writes stays whole. */
  text() {
    return Buffer.concat(this.#chunks).toString('utf8');
  }
}

let bundle;
/** dist/rsi-full.cjs's main(), loaded once for every run; a clear stop when the bundle was not built. */
async function rsiMain() {
  if (!existsSync(BUNDLE)) {
    throw new Error(`${fileURLToPath(BUNDLE)} is missing: run \`npm run build\` first (this wrapper runs the built rsi)`);
  }
  // Compiled as bin/rsi.js compiles it (dist/boot.cjs), without a code cache.
  bundle ??= createRequire(import.meta.url)('../../dist/boot.cjs').load(fileURLToPath(BUNDLE));
  return bundle.main;
}

/** Runs rsi in this process, echoing its output (the suite keeps it), and resolves with its exit code and stderr. */
async function rsi(args, extra = {}) {
  const main = await rsiMain();
  process.stderr.write(`$ rsi ${args.join(' ')}\n`);
  const stdout = new Tee(process.stdout);
  const stderr = new Tee(process.stderr);
  const stdin = Readable.from([]);
  const code = await main({ argv: [...args], env: { ...env, ...extra }, stdio: { stdin, stdout, stderr } });
  return { code, stderr: stderr.text() };
}

/** The `rsi login …` command of a hint, as arguments; undefined when the hint names none. */
function loginFromHint(stderr) {
  const hint = /^hint: .*?`rsi ((?:--profile \S+ )?login [^`]*--resource mcp[^`]*)`/m.exec(stderr);
  return hint ? hint[1].split(/\s+/) : undefined;
}

async function main() {
  // A scenario this wrapper does not know would otherwise be driven as a sign-in, and might "pass"
  // by testing nothing: it must be looked at and listed first.
  if (!MUST_PASS.includes(scenario) && !(scenario in NOT_APPLICABLE) && !(scenario in SUITE_DEFECTS)) {
    process.stderr.write(
      `unknown conformance scenario ${JSON.stringify(scenario)}: list it in test/outside/mcp-conformance-scenarios.mjs (must pass, not applicable, or a suite defect) before running it\n`,
    );
    return 2;
  }
  if (NOT_APPLICABLE[scenario]) {
    process.stderr.write(`not applicable to rsi: ${NOT_APPLICABLE[scenario]}\n`);
    return 0;
  }
  // The two protocol scenarios test the session, not sign-in: their servers ignore Authorization,
  // and rsi's MCP commands need a token, so any will do.
  if (scenario === 'initialize') return (await rsi(['mcp', 'tools'], { RSI_MCP_TOKEN: 'conformance' })).code;
  // A tools/call whose event stream the server closes early: rsi resumes it with Last-Event-ID.
  if (scenario === 'sse-retry') return (await rsi(['mcp', 'call', 'test_reconnection'], { RSI_MCP_TOKEN: 'conformance' })).code;
  if (scenario === 'tools_call') {
    return (await rsi(['mcp', 'call', 'add_numbers', '--arg', 'a=2', '--arg', 'b=3'], { RSI_MCP_TOKEN: 'conformance' })).code;
  }
  // Every other known scenario is a sign-in one (auth/…).
  const login = ['login', '--resource', 'mcp'];
  const secret = {};
  if (scenario === 'auth/basic-cimd') login.push('--client-id', CIMD_URL);
  if (context.client_id && context.client_secret) {
    // A pre-registered confidential client: its id on the command line, its secret in the environment.
    login.push('--client-id', context.client_id);
    secret.RSI_CLIENT_SECRET = context.client_secret;
  }
  const first = await rsi(login, secret);
  if (first.code !== 0) return first.code;
  for (let hints = 0; ; hints++) {
    const call = await rsi(['mcp', 'call', 'test-tool']);
    const next = call.code === 4 ? loginFromHint(call.stderr) : undefined;
    if (!next || hints >= MAX_HINTS) return call.code;
    const again = await rsi(next, secret);
    if (again.code !== 0) return again.code;
  }
}

try {
  process.exitCode = await main();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
