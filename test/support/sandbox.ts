import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { RSI_BIN, cleanEnv } from './cli.js';

export interface SandboxProcess {
  url: string;
  /** The secret its /__sandbox/* routes require (set through RSI_SANDBOX_ADMIN_SECRET). */
  adminSecret: string;
  child: ChildProcess;
  /** With --tls: the CA certificate (PEM) it printed on its second stdout line. */
  caFile?: string;
  /** The base URL by its loopback address (differs from `url` with --public-host). */
  local: string;
  /** Lines the sandbox printed on stderr so far (for diagnosing a failed test). */
  stderr: () => string;
  stop(): Promise<void>;
}

/**
 * Starts `rsi sandbox --port 0 …` as a real child process (one per test file) and resolves with the
 * base URL from its first stdout line. `bin` runs another rsi executable (an installed one).
 */
export function startSandbox(
  args: readonly string[] = [],
  options: { bin?: string; cwd?: string; env?: Record<string, string> } = {},
): Promise<SandboxProcess> {
  return new Promise((resolve, reject) => {
    const adminSecret = randomBytes(24).toString('base64url');
    const [command, ...prefix] = options.bin ? [options.bin] : [process.execPath, RSI_BIN];
    const child = spawn(command!, [...prefix, 'sandbox', '--port', '0', ...args], {
      env: cleanEnv({ RSI_SANDBOX_ADMIN_SECRET: adminSecret, ...options.env }),
      cwd: options.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`sandbox did not print its URL within 120 s; stderr: ${err}`));
    }, 120_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sandbox exited early with ${code}; stderr: ${err}`));
    });
    const tls = args.includes('--tls');
    const got: string[] = [];
    lines.on('line', (line) => {
      got.push(line.trim());
      if (got.length !== (tls ? 2 : 1)) return;
      clearTimeout(timer);
      const [url = '', caFile] = got;
      const local = rememberSandbox(url, adminSecret, caFile);
      resolve({
        url,
        adminSecret,
        ...(caFile ? { caFile } : {}),
        local,
        child,
        stderr: () => err,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/**
 * Makes a started sandbox (a process or one in this process) reachable by URL for the admin helpers
 * and, with --tls, for `sandboxFetch`; returns its base URL by its loopback address.
 */
export function rememberSandbox(url: string, adminSecret: string, caFile?: string): string {
  const local = loopbackUrl(url);
  secrets.set(url, adminSecret);
  if (caFile) trusted.set(url, { local, fetch: trustingFetch(caFile) });
  return local;
}

/** `https://rsi.test:4431` → `https://127.0.0.1:4431`: the sandbox answers its loopback names too. */
function loopbackUrl(url: string): string {
  const u = new URL(url);
  if (u.hostname === 'localhost' || u.hostname === '[::1]' || /^127\./.test(u.hostname)) return url;
  u.hostname = '127.0.0.1';
  return u.origin;
}

/** A fetch that trusts one CA (Node's global fetch cannot be given one), for --tls sandboxes. */
function trustingFetch(caFile: string): typeof fetch {
  let made: Promise<typeof fetch> | undefined;
  return (async (input: string | URL | Request, init?: RequestInit) => {
    made ??= import('undici').then(({ Agent, fetch: undiciFetch }) => {
      const dispatcher = new Agent({ connect: { ca: readFileSync(caFile, 'utf8') } });
      return ((i: string | URL | Request, o?: RequestInit) =>
        undiciFetch(i as never, { ...(o as object), dispatcher } as never)) as unknown as typeof fetch;
    });
    return (await made)(input, init);
  }) as typeof fetch;
}

/** --tls sandboxes: URL → its loopback URL and a fetch trusting its CA. */
const trusted = new Map<string, { local: string; fetch: typeof fetch }>();

/** A fetch that reaches `url` (a sandbox's base URL or under it): trusting its CA, by loopback. */
export function sandboxFetch(url: string): { base: string; fetch: typeof fetch } {
  for (const [base, t] of trusted) if (url.startsWith(base)) return { base: t.local, fetch: t.fetch };
  return { base: url, fetch };
}

/** A sandbox the admin helpers can reach: a started process or in-process sandbox, or its URL. */
export type SandboxTarget = string | { url: string; adminSecret: string };

/** URL → admin secret of every sandbox process this test process started. */
const secrets = new Map<string, string>();

/**
 * Calls an admin route (`/__sandbox/<route>`) with the sandbox's secret: the one way tests reach
 * them. A URL string works for sandboxes started with startSandbox() above.
 */
export async function sandboxAdmin(target: SandboxTarget, route: string, init: RequestInit = {}): Promise<Response> {
  const url = typeof target === 'string' ? target : target.url;
  const secret = typeof target === 'string' ? secrets.get(url) : target.adminSecret;
  if (secret === undefined) throw new Error(`no admin secret known for ${url}: pass the sandbox object, not its URL`);
  const headers = new Headers(init.headers);
  headers.set('x-sandbox-secret', secret);
  const reach = sandboxFetch(url);
  return reach.fetch(`${reach.base}/__sandbox/${route}`, { ...init, headers });
}

/** The sandbox's own counters (requests, refreshes, recorded runs), for proving what was sent. */
export async function sandboxStats(target: SandboxTarget): Promise<SandboxStats> {
  const res = await sandboxAdmin(target, 'stats');
  if (!res.ok) throw new Error(`stats: ${res.status}`);
  return (await res.json()) as SandboxStats;
}

/** Jumps the sandbox's clocks forward (codes, tokens expire at once; scans and analyses move on) instead of sleeping through a lifetime. */
export async function advanceSandbox(target: SandboxTarget, seconds: number): Promise<void> {
  const res = await sandboxAdmin(target, `advance?seconds=${seconds}`, { method: 'POST' });
  if (!res.ok) throw new Error(`advance: ${res.status}`);
  await res.body?.cancel();
}

/**
 * A token lifetime passes without sleeping through it: the sandbox's clock jumps `seconds` forward
 * (its access tokens are dead server-side) and every access token in the file store under
 * `configDir` is marked expired (the client sees it due and refreshes before its request), which
 * is what a real wait of the lifetime does to both sides.
 */
export async function expireTokens(target: SandboxTarget, configDir: string, seconds: number): Promise<void> {
  await advanceSandbox(target, seconds);
  const file = join(configDir, 'credentials.json');
  const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { expiresAt: number }>;
  for (const entry of Object.values(stored)) entry.expiresAt = Date.now() - 1000;
  writeFileSync(file, JSON.stringify(stored), { mode: 0o600 });
}

/** Zeroes the sandbox's counters. */
export async function resetSandboxStats(target: SandboxTarget): Promise<void> {
  const res = await sandboxAdmin(target, 'reset-stats', { method: 'POST' });
  if (!res.ok) throw new Error(`reset-stats: ${res.status}`);
}

export interface SandboxStats {
  /** Every request the sandbox received, admin routes excluded. */
  requests: number;
  /** Requests under /api/v1. */
  apiRequests: number;
  /** Count per "METHOD /route/template", e.g. "GET /api/v1/keywords/{keywordId}". */
  byRoute: Record<string, number>;
  registrations: number;
  tokens: { issuedByCode: number; refreshed: number; revoked: number };
  /** Analysis runs recorded by POST /projects/{id}/analyses, all projects. */
  runs: number;
}

/**
 * What `--fault hostile` plants (see docs/sandbox.md): every person-readable string of an API reply
 * becomes `hostile(plain)` — a formula start, the text, a space, then every escape below. The one
 * seeded project named HOSTILE_PLAIN_PROJECT keeps its name, so exact name lookup can be tried.
 */
export { HOSTILE_ESCAPES, HOSTILE_FORMULA_STARTS, HOSTILE_PLAIN_PROJECT, hostile } from '../../src/sandbox/faults.js';

/**
 * The characters of the planted sequences that must never reach a person's terminal raw: C0
 * controls other than newline and tab (tab separates tsv columns; CR only as part of CRLF, which
 * RFC 4180 CSV uses), DEL, C1 controls, and the bidi overrides and isolates. Returns each offending
 * character as `U+XXXX at <index>`, so a failing test says where; empty when the text is clean.
 */
export function rawControls(text: string): string[] {
  const found: string[] = [];
  // Controls, bidi controls and the invisible format characters (zero-width, soft hyphen, BOM, tags).
  const bad = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u{e0000}-\u{e007f}]/gu;
  for (const m of text.matchAll(bad)) {
    if (m[0] === '\r' && text[m.index + 1] === '\n') continue;
    found.push(`U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} at ${m.index}`);
  }
  return found;
}

export interface ApiReply {
  status: number;
  body: any;
  headers: Headers;
}

/**
 * Plain HTTP calls to a sandbox's API with a bearer token (sandbox conformance tests, no CLI):
 * `api('/keywords?q=egfr')`, `api('/projects', { method: 'POST', body: '{"name":"x"}' })`.
 */
export function apiCaller(baseUrl: string, token: string): (path: string, init?: RequestInit) => Promise<ApiReply> {
  return async (path, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${token}`);
    if (init.body) headers.set('content-type', 'application/json');
    const res = await fetch(`${baseUrl}/api/v1${path}`, { ...init, headers });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  };
}
