#!/usr/bin/env node
// `npm run demo`: the whole journey against a local sandbox, as a person would type it.
//
// It starts `rsi sandbox` (auto-approving sign-ins, clock sped up), signs in through the real PKCE
// flow with a stand-in browser, and runs search → card → relations → create a project → finish
// setup → wait for signals → signals → run analyses → wait for scoring → opportunities. Each command
// is printed before its real output. Credentials go to a 0600 file in a temporary config folder
// (RSI_CREDENTIAL_STORE=file), so the demo never touches your keychain or ~/.config, and works on
// machines without a keychain. Everything is removed at the end.
//
// The same every run: the sandbox derives its ids from a seed (`rsi sandbox --seed`), so the project
// gets the same signals and the analyses the same outcomes. `npm run demo -- --seed other` varies it.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RSI = join(ROOT, 'bin', 'rsi.js');
const BROWSER = fileURLToPath(new URL('./browser.mjs', import.meta.url));
const PROJECT = 'EGFR resistance demo';
const SEED = seedFromArgs(process.argv.slice(2));

/** `--seed TEXT` or `--seed=TEXT`; `demo` when not given. */
function seedFromArgs(args) {
  const [first, second, ...rest] = args;
  if (first === undefined) return 'demo';
  if (first === '--seed' && second !== undefined && rest.length === 0) return second;
  if (first.startsWith('--seed=') && second === undefined) return first.slice('--seed='.length);
  throw new Error(`unexpected arguments ${args.join(' ')}: the demo takes --seed TEXT`);
}
const tty = process.stdout.isTTY === true;
const bold = (s) => (tty ? `\x1b[1m${s}\x1b[22m` : s);
const dim = (s) => (tty ? `\x1b[2m${s}\x1b[22m` : s);

const home = mkdtempSync(join(tmpdir(), 'rsi-demo-'));
let sandbox;

function baseEnv() {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('RSI_')) delete env[key];
  // A scripted show: no update notice between its steps.
  env.RSI_NO_UPDATE_NOTIFIER = '1';
  return env;
}

function quote(arg) {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(arg) ? arg : `"${arg.replaceAll('"', '\\"')}"`;
}

function say(text) {
  process.stdout.write(`\n${dim(`# ${text}`)}\n`);
}

/** Prints `$ rsi …`, runs it with the terminal's stdout/stderr, resolves with the exit code. */
function rsi(args, { capture = false, env = {} } = {}) {
  process.stdout.write(`${bold(`$ rsi ${args.map(quote).join(' ')}`)}\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RSI, ...args], {
      env: { ...baseEnv(), ...commonEnv, ...env },
      stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'],
    });
    let out = '';
    if (capture) {
      child.stdout.setEncoding('utf8').on('data', (chunk) => {
        out += chunk;
        process.stdout.write(chunk);
      });
    }
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

/** Runs rsi without showing it (the demo's own look-ups): its stdout, or an error. */
function query(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RSI, ...args], { env: { ...baseEnv(), ...commonEnv }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`\`rsi ${args.join(' ')}\` exited ${code}`))));
  });
}

async function must(args, options) {
  const result = await rsi(args, options);
  if (result.code !== 0) throw new Error(`\`rsi ${args.join(' ')}\` exited ${result.code}`);
  return result;
}

function startSandbox() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RSI, 'sandbox', '--port', '0', '--auto-approve', '--time-scale', '50', '--seed', SEED], {
      env: baseEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (c) => (err += c));
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}: ${err}`)));
    createInterface({ input: child.stdout }).once('line', (line) => resolve({ child, url: line.trim() }));
  });
}

let commonEnv = {};

async function main() {
  chmodSync(BROWSER, 0o755);
  say(`Starting a local sandbox of the service (sign-ins auto-approved, clock 50x faster, seed "${SEED}": the same data every run)`);
  sandbox = await startSandbox();
  process.stdout.write(`${dim(`  sandbox at ${sandbox.url}`)}\n`);
  commonEnv = {
    RSI_CONFIG_DIR: join(home, 'config'),
    RSI_CREDENTIAL_STORE: 'file',
    BROWSER,
  };
  say(`Credentials are kept in a 0600 file under ${home} (RSI_CREDENTIAL_STORE=file), not in your keychain`);

  say('Sign in: rsi opens the browser at the authorization page (here a stand-in that approves)');
  await must(['login', '--base-url', sandbox.url]);
  await must(['auth', 'status']);

  say('Explore keywords');
  await must(['keywords', 'search', 'egfr']);
  await must(['keywords', 'get', 'EGFR']);
  await must(['keywords', 'relations', 'EGFR', '--relation', 'indications', '--limit', '5']);

  say('Create a project and finish its scoring setup');
  const created = await must(['projects', 'create', '--name', PROJECT, '--goal', 'target', '--json'], { capture: true });
  const { id, setup_url: setupUrl } = JSON.parse(created.out);
  process.stdout.write(`${dim(`  (in the web app: open ${setupUrl} and press the button; the demo posts the same form)`)}\n`);
  const setup = await fetch(`${sandbox.url}/projects/${id}/setup`, { method: 'POST', redirect: 'manual' });
  if (setup.status >= 400) throw new Error(`setup form: HTTP ${setup.status}`);

  say('Wait for the signal scan');
  await must(['status', PROJECT, '--watch', '--interval', '0.5']);
  await must(['signals', PROJECT, '--limit', '10']);

  say('Score the top 3 targets (the service asks to confirm; --yes answers for us)');
  await must(['analyses', 'run', PROJECT, '--top', '3', '--type', 'target', '--yes']);

  say('Wait for scoring');
  const watched = await rsi(['status', PROJECT, '--watch', '--interval', '0.5']);
  if (watched.code !== 0 && watched.code !== 10) throw new Error(`status --watch exited ${watched.code}`);
  // A failed analysis (exit 10 when it failed while the watch looked; a note when before): say which, and how to retry.
  const failed = (await query(['status', PROJECT, '--jq', '.analyses[] | select(.status == "failed") | .keyword_name']))
    .split('\n')
    .filter(Boolean);
  if (failed.length > 0) {
    say(`${failed.length} analysis failed (the sandbox fails the signals ranked 7, 14, … on purpose); the others scored. To retry one:`);
    for (const name of failed)
      process.stdout.write(`${bold(`$ rsi analyses run ${quote(PROJECT)} --select ${quote(name)} --yes --wait`)}\n`);
    process.stdout.write(`${dim('  (not run here: the sandbox would fail it again; against the service it runs anew)')}\n`);
  }

  await must(['opportunities', PROJECT]);
  say('Done.');
}

async function cleanup() {
  if (sandbox) {
    sandbox.child.removeAllListeners('exit');
    const exited = new Promise((r) => sandbox.child.once('exit', r));
    sandbox.child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
  }
  rmSync(home, { recursive: true, force: true });
}

try {
  await main();
  await cleanup();
} catch (error) {
  process.stderr.write(`\ndemo failed: ${error instanceof Error ? error.message : String(error)}\n`);
  await cleanup();
  process.exitCode = 1;
}
