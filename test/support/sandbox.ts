import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { RSI_BIN, cleanEnv } from './cli.js';

export interface SandboxProcess {
  url: string;
  child: ChildProcess;
  /** Lines the sandbox printed on stderr so far (for diagnosing a failed test). */
  stderr: () => string;
  stop(): Promise<void>;
}

/**
 * Starts `rsi sandbox --port 0 …` as a real child process (one per test file) and resolves with the
 * base URL from its first stdout line.
 */
export function startSandbox(args: readonly string[] = []): Promise<SandboxProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RSI_BIN, 'sandbox', '--port', '0', ...args], {
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    const lines = createInterface({ input: child.stdout! });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`sandbox did not print its URL within 10 s; stderr: ${err}`));
    }, 10_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sandbox exited early with ${code}; stderr: ${err}`));
    });
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve({
        url: line.trim(),
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

/** The sandbox's own counters (requests, refreshes, recorded runs), for proving what was sent. */
export async function sandboxStats(url: string): Promise<SandboxStats> {
  const res = await fetch(`${url}/__sandbox/stats`);
  if (!res.ok) throw new Error(`stats: ${res.status}`);
  return (await res.json()) as SandboxStats;
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
  const bad = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;
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
