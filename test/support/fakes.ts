/**
 * Shared in-process test doubles: streams that record what was written, a clock whose sleeps return
 * at once, and a Context for calling a command's `run` without a process.
 */
import { PassThrough } from 'node:stream';
import { createDeadline } from '../../src/context/deadline.js';
import type { Credentials } from '../../src/auth/credentials.js';
import type { ApiClient } from '../../src/client/client.js';
import type { Context, GlobalOptions } from '../../src/context.js';
import type { OutputFormat } from '../../src/formats.js';
import type { Session } from '../../src/auth/session.js';
import type { Clock, Env, Io } from '../../src/io/io.js';
import { createProgress, type Progress } from '../../src/io/progress.js';
import type { Browser } from '../../src/io/browser.js';
import type { Prompter } from '../../src/io/prompter.js';
import type { McpConnection } from '../../src/mcp/client.js';
import { Network } from '../../src/http/network.js';
import { makeOutput, type Output, type OutputShape } from '../../src/io/formats.js';

export type FakeIo = Io & { out: () => string; err: () => string; stdinStream: PassThrough };

export interface FakeIoOptions {
  /** Every stream a TTY (default false). */
  tty?: boolean;
  /** Per-stream overrides of `tty`. */
  stdinTTY?: boolean;
  stdoutTTY?: boolean;
  stderrTTY?: boolean;
  columns?: number;
  color?: boolean;
  /** stdin's whole content, then its end (omitted, stdin stays open: `stdinStream` writes to it). */
  stdin?: string;
}

export function fakeIo(options: FakeIoOptions | boolean = {}): FakeIo {
  const o = typeof options === 'boolean' ? { tty: options } : options;
  const tty = o.tty ?? false;
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  if (o.stdin !== undefined) stdin.end(o.stdin);
  return {
    stdin,
    stdinStream: stdin,
    stdout,
    stderr,
    stdinIsTTY: o.stdinTTY ?? tty,
    stdoutIsTTY: o.stdoutTTY ?? tty,
    stderrIsTTY: o.stderrTTY ?? tty,
    columns: o.columns ?? 100,
    color: o.color ?? false,
    colorStderr: o.color ?? false,
    out: () => out,
    err: () => err,
  };
}

export type FakeClock = Clock & { t: number; sleeps: number[] };

/** Sleeps return at once, are recorded, and advance the time; an aborted signal throws. */
export function fakeClock(start = 1_000_000): FakeClock {
  const clock: FakeClock = {
    t: start,
    sleeps: [],
    now: () => clock.t,
    sleep: async (ms: number, signal?: AbortSignal) => {
      signal?.throwIfAborted();
      clock.sleeps.push(ms);
      clock.t += ms;
    },
  };
  return clock;
}

export interface FakeCtxOptions {
  format?: OutputFormat;
  globals?: Partial<GlobalOptions>;
  env?: Env;
  clock?: Clock;
  signal?: AbortSignal;
  /** The client `ctx.client()` resolves to; omitted, asking for one fails the test. */
  client?: Partial<ApiClient>;
  session?: Partial<Session>;
  /** What `ctx.network()` resolves to; omitted, a real one on the test's env (tests reach loopback only). */
  network?: Network;
  /** What `ctx.credentials()` resolves to (auth commands); omitted, asking for them fails the test. */
  credentials?: Partial<Credentials>;
  /** What `ctx.prompter()` resolves to (a ScriptedPrompter); omitted, asking one fails the test. */
  prompter?: Prompter;
  /** What `ctx.progress()` resolves to; omitted, the real one on the fake streams. */
  progress?: Progress;
  /** What `ctx.browser()` resolves to; omitted, opening one fails the test. */
  browser?: Browser;
  /** What `ctx.mcp()` opens (a fakeMcp session); omitted, opening one fails the test. */
  mcp?: () => Promise<McpConnection>;
  /** What `--fields`/`--jq` made of the run's output (`ctx.output()`); omitted, none. */
  shape?: OutputShape;
}

export function fakeCtx(io: Io, options: FakeCtxOptions | OutputFormat = {}): Context {
  const o = typeof options === 'string' ? { format: options } : options;
  const format = o.format ?? o.globals?.format ?? 'tsv';
  const globals: GlobalOptions = {
    profile: 'default',
    profileSource: 'default',
    baseUrl: undefined,
    baseUrlSource: undefined,
    json: format === 'json',
    format,
    debug: false,
    timeoutMs: 120_000,
    commandTimeoutMs: undefined,
    time: 'relative',
    wide: false,
    header: false,
    ...o.globals,
  };
  const missing = (what: string) => () => Promise.reject(new Error(`no ${what} in this unit test`));
  // A generous deadline: these requests go to loopback, and a busy machine must not trip it.
  let network: Network | undefined = o.network;
  const clock = o.clock ?? fakeClock(0);
  // The real bound (src/context/deadline.ts), set as the program's hook sets it when a test gives --timeout.
  const deadline = createDeadline(o.signal ?? new AbortController().signal, clock);
  if (globals.commandTimeoutMs !== undefined) deadline.limit(globals.commandTimeoutMs);
  let output: Output | undefined;
  const build = (shape: OutputShape = o.shape ?? {}): Output =>
    makeOutput(
      io,
      { format: globals.format, time: globals.time, wide: globals.wide, header: globals.header, now: () => clock.now() },
      shape,
    );
  return {
    io,
    env: o.env ?? {},
    clock,
    signal: deadline.signal,
    deadline,
    version: 'test',
    // A test's process is not the command's: V8's flags stay the test runner's.
    setV8Flags: () => undefined,
    globals: () => globals,
    prepareOutput: async (shape) => (output = build(shape)),
    output: () => (output ??= build()),
    settings: () => ({}),
    loadSettings: () => Promise.resolve(),
    network: async () => (network ??= new Network({ env: o.env ?? {}, timeoutMs: 30_000 })),
    credentials: o.credentials ? () => Promise.resolve(o.credentials as Credentials) : missing('credentials'),
    session: o.session ? () => Promise.resolve(o.session as Session) : missing('session'),
    client: o.client ? () => Promise.resolve(o.client as ApiClient) : missing('client'),
    prompter: o.prompter ? () => Promise.resolve(o.prompter!) : missing('prompter'),
    progress: (options) => Promise.resolve(o.progress ?? createProgress(io, options)),
    mcp: o.mcp ?? missing('MCP session'),
    mcpServer: missing('MCP server'),
    browser: o.browser ? () => Promise.resolve(o.browser!) : missing('browser'),
    close: () => Promise.resolve(),
    onClose: () => undefined,
  };
}

/** A poll that replies (or throws) in order, repeating the last reply when the script runs out; `calls()` counts the polls. */
export function scriptedPoll<T>(replies: ReadonlyArray<T | Error>): { poll: () => Promise<T>; calls: () => number } {
  let i = 0;
  const poll = async (): Promise<T> => {
    const r = replies[Math.min(i, replies.length - 1)]!;
    i += 1;
    if (r instanceof Error) throw r;
    return r;
  };
  return { poll, calls: () => i };
}
