/**
 * `--jq <expr>`: the real jq language (jq 1.8, compiled to WebAssembly by the `jq-wasm` package;
 * docs/scripting.md says why this one and which rules it keeps). Imported only when the flag is
 * given, so no other run loads the engine or starts its thread.
 *
 * jq runs in a worker thread (src/io/jq-worker.ts, built to `dist/jq-worker.cjs`): the main thread
 * stays free for Ctrl-C and SIGTERM, which end the thread at once, and the thread's memory is
 * bounded. The build copies the package's `jq.wasm` to `dist/jq.wasm`, beside the chunks; it is read
 * as bytes and compiled here once, and the compiled module goes to the thread.
 */
import { setV8Flags } from './v8-flags.js';
import type { JqJob, JqWorkerData, JqWorkerMessage } from './jq-worker.js';
import { CliError, UsageError } from '../errors.js';

/** A compiled `--jq` expression: each JSON text in gives zero or more outputs. */
export interface JqProgram {
  readonly expression: string;
  /**
   * Runs the program on one JSON text (jq reads it as jq reads its input: numbers as literals).
   * Hands the outputs, each as jq wrote it, to `emit` in order, waiting for it; rejects after the
   * outputs written before an error with a JqExpressionError in jq's words.
   */
  run(json: string, pretty: boolean, emit: (outputs: string[]) => Promise<void>): Promise<void>;
}

export interface JqOptions {
  /** The process environment: jq's `$ENV` and `env`. */
  env: Record<string, string | undefined>;
  /** Ctrl-C / SIGTERM: a running program is stopped at once and the run rejects with the reason. */
  signal?: AbortSignal | undefined;
  /** Where text the program writes to stderr on purpose goes (`debug`, `stderr`, `halt_error`). */
  stderr: (text: string) => void;
}

/** A jq error: the expression does not compile, or fails on the data (exit 2 either way). */
export class JqExpressionError extends UsageError {
  override readonly code = 'jq';
}

/** The engine itself failed (its stack or its memory): one line, exit 2, never a crash report. */
export class JqEngineError extends CliError {
  override readonly code = 'jq';
  override readonly exitCode = 2;
}

/** The worker's memory for JavaScript (the wasm heap has its own 256 MB ceiling, set by jq-wasm). */
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 };

/**
 * Compiles `expression` exactly as given, before any request: jq compiles it and then finds no
 * input, so nothing is evaluated (a program that would never end is fine here).
 */
export async function compileJq(expression: string, options: JqOptions): Promise<JqProgram> {
  if (expression.trim() === '') throw new JqExpressionError('--jq needs an expression, e.g. --jq .name');
  const check = await (await engineFor(options.env)).job({ expression, input: null, pretty: false }, options, async () => {});
  if (check.compileErrors) {
    const [first = 'jq: error: the expression does not compile', ...more] = check.compileErrors;
    throw new JqExpressionError(`--jq: ${jqMessage(first)}${more.length ? ` (and ${more.length} more)` : ''}`, {
      hint: `the expression was: ${expression}`,
    });
  }
  return {
    expression,
    async run(json, pretty, emit) {
      // jq cannot read a high surrogate without its low half (it stops with status 5, as if the
      // program had called halt_error); say what it is instead, before jq sees it. A low one alone
      // jq reads as U+FFFD, as it does: that goes through.
      const lone = loneSurrogate(json);
      if (lone !== undefined) {
        throw new JqExpressionError(`--jq: the reply holds an unpaired UTF-16 high surrogate (${lone}), which jq cannot read`, {
          hint: 'the service sent a string that is not valid Unicode; --json prints the reply as sent, with the surrogate as an escape',
        });
      }
      // The thread of the moment: one that trapped on another program has been replaced.
      const done = await (await engineFor(options.env)).job({ expression, input: json, pretty }, options, emit);
      if (done.error !== undefined) {
        const hint = shapeHint(done.error, json);
        throw new JqExpressionError(`--jq: ${jqMessage(done.error)}`, hint ? { hint } : {});
      }
      // halt_error with a status: the program asked for it; rsi's one code for a jq failure.
      if (done.exitCode !== 0) throw new JqHaltError(done.exitCode);
    },
  };
}

/**
 * The first high surrogate without its low half in a JSON text (what jq 1.8 refuses to parse), as
 * its escape (`\ud800`), raw or written as a `\uXXXX` escape inside a string; undefined when there
 * is none. A low surrogate alone is not one: jq reads it as U+FFFD. One pass over the text.
 */
export function loneSurrogate(json: string): string | undefined {
  const hex = (code: number) => `\\u${code.toString(16).padStart(4, '0')}`;
  const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
  const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;
  /** The code unit at `i` (raw, or an escape `\uXXXX`) and where the next one starts. */
  const unit = (i: number): [number, number] => {
    if (json.charCodeAt(i) === 0x5c && json[i + 1] === 'u') {
      const digits = json.slice(i + 2, i + 6);
      if (/^[0-9a-f]{4}$/i.test(digits)) return [Number.parseInt(digits, 16), i + 6];
    }
    return [json.charCodeAt(i), i + 1];
  };
  for (let i = 0; i < json.length; ) {
    // Any other escape (`\\`, `\"`) is two characters: skipped whole, so `\\ud800` is not one.
    if (json.charCodeAt(i) === 0x5c && json[i + 1] !== 'u') {
      i += 2;
      continue;
    }
    const [code, next] = unit(i);
    if (isHigh(code)) {
      const [after, end] = next < json.length ? unit(next) : [0, next];
      if (!isLow(after)) return hex(code);
      i = end;
      continue;
    }
    i = next;
  }
  return undefined;
}

/**
 * For an error that says the program looked where the document has nothing (`.opportunities[]` on
 * a document without it: "Cannot iterate over null"), what the document does have: its members, or
 * that it is an array (and its items' members). rsi help schema has the whole shape.
 */
export function shapeHint(error: string, json: string): string | undefined {
  if (!/Cannot (iterate over|index)|null \(null\)|has no keys/.test(error)) return undefined;
  let document: unknown;
  try {
    document = JSON.parse(json);
  } catch {
    return undefined;
  }
  const members = (value: unknown): string | undefined =>
    value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value).join(', ') || '(none)' : undefined;
  const top = members(document);
  if (top !== undefined) return `the document's members are: ${top}`;
  if (Array.isArray(document)) {
    const inner = members(document.find((item) => item !== null && typeof item === 'object'));
    return `the document is an array of ${document.length} items${inner ? `, each with members such as: ${inner}` : ''} (iterate it with .[])`;
  }
  return `the document is ${document === null ? 'null' : `a ${typeof document}`}`;
}

/** `halt_error`: its text is already on stderr, as the program wrote it. */
export class JqHaltError extends CliError {
  override readonly code = 'jq-halt';
  override readonly exitCode = 2;
  constructor(readonly jqExitCode: number) {
    super(`--jq: the program stopped with halt_error (jq's exit status ${jqExitCode})`);
  }
}

type Done = JqWorkerMessage & { type: 'done' };

interface Engine {
  job(job: Omit<JqJob, 'id'>, options: JqOptions, emit: (outputs: string[]) => Promise<void>): Promise<Done>;
}

/** One engine thread per environment, kept for later programs of the same process (tests run many). */
const engines = new Map<string, Promise<Engine>>();
let wasmModule: Promise<object> | undefined;

function engineFor(env: Record<string, string | undefined>): Promise<Engine> {
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) clean[k] = v;
  const key = JSON.stringify(clean);
  let engine = engines.get(key);
  if (!engine) {
    engine = startEngine(clean, () => engines.delete(key));
    engines.set(key, engine);
    engine.catch(() => engines.delete(key));
  }
  return engine;
}

async function startEngine(env: Record<string, string>, forget: () => void): Promise<Engine> {
  const [{ Worker }, module, source] = await Promise.all([import('node:worker_threads'), compiledWasm(), workerSource()]);
  const inFlight = new SharedArrayBuffer(4);
  const counter = new Int32Array(inFlight);
  const workerData: JqWorkerData = { module, env, inFlight };
  const worker = new Worker(source.code ?? source.url!, {
    eval: source.code !== undefined,
    workerData,
    resourceLimits: RESOURCE_LIMITS,
    // The thread's own stdio (Emscripten's "Aborted(…)" on a trap) stays off the user's streams:
    // what jq writes goes through the messages above.
    stdout: true,
    stderr: true,
  });
  worker.unref();

  interface Pending {
    job: Omit<JqJob, 'id'>;
    emit: (outputs: string[]) => Promise<void>;
    options: JqOptions;
    resolve: (done: Done) => void;
    reject: (error: unknown) => void;
    /** Outputs are written one batch after another, in order. */
    chain: Promise<void>;
    /** Whether the thread has said anything about this job yet (it runs one job at a time). */
    started: boolean;
    /** Whether the thread has finished it (its outputs may still be on the way out). */
    ended: boolean;
  }
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let dead: unknown;

  const stop = (error: unknown): void => {
    if (dead !== undefined) return;
    dead = error;
    forget();
    void worker.terminate();
    // A job whose end has come is left to finish writing; every other one fails with the cause.
    for (const p of pending.values()) if (!p.ended) p.reject(error);
    pending.clear();
  };

  worker.on('message', (m: JqWorkerMessage) => {
    const p = pending.get(m.id);
    if (!p) return;
    p.started = true;
    if (m.type === 'out') {
      p.chain = p.chain.then(async () => {
        await p.emit(m.values);
        // The thread may be waiting for room: make some.
        Atomics.sub(counter, 0, m.bytes);
        Atomics.notify(counter, 0);
      });
      p.chain.catch((error: unknown) => stop(error));
    } else if (m.type === 'stderr') {
      p.chain = p.chain.then(() => p.options.stderr(m.text));
    } else if (m.type === 'done') {
      p.ended = true;
      p.chain.then(() => {
        pending.delete(m.id);
        if (pending.size === 0) worker.unref();
        p.resolve(m);
      }, p.reject);
    } else {
      // The trap ends this thread. Jobs queued behind the one that trapped have not started (the
      // thread runs one at a time, and has said nothing of them): they run on a fresh thread.
      const queued: Pending[] = [];
      for (const [id, q] of pending)
        if (!q.started) {
          queued.push(q);
          pending.delete(id);
        }
      stop(new JqEngineError(`--jq: the jq engine failed: ${engineWords(m.message)}`));
      for (const q of queued)
        engineFor(env)
          .then((fresh) => fresh.job(q.job, q.options, q.emit))
          .then(q.resolve, q.reject);
    }
  });
  worker.on('error', (error: Error & { code?: string }) =>
    stop(
      new JqEngineError(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `--jq: the jq program ran out of memory (limit ${RESOURCE_LIMITS.maxOldGenerationSizeMb} MB)`
          : `--jq: the jq engine failed: ${error.message}`,
      ),
    ),
  );
  worker.on('exit', () => stop(new JqEngineError('--jq: the jq engine stopped')));

  return {
    job(job, options, emit) {
      if (dead !== undefined) return Promise.reject(dead);
      const signal = options.signal;
      if (signal?.aborted) return Promise.reject(signal.reason);
      const id = nextId++;
      return new Promise<Done>((resolve, reject) => {
        const onAbort = () => stop(signal!.reason);
        const settle = () => signal?.removeEventListener('abort', onAbort);
        pending.set(id, {
          job,
          emit,
          options,
          resolve: (d) => (settle(), resolve(d)),
          reject: (e) => (settle(), reject(e)),
          chain: Promise.resolve(),
          started: false,
          ended: false,
        });
        signal?.addEventListener('abort', onAbort, { once: true });
        worker.ref();
        worker.postMessage({ id, ...job } satisfies JqJob);
      });
    },
  };
}

/** jq's words for a trap (its own error line if it wrote one), with what most likely caused it. */
function engineWords(raw: string): string {
  const message = raw.startsWith('jq: error')
    ? jqMessage(raw.split('\n')[0]!)
    : raw.replace(/\s*Build with -sASSERTIONS for more info\.?$/, '');
  if (/out of bounds|call stack|stack overflow|Maximum call stack/i.test(message))
    return `${message} (the data or the program nests deeper than the engine's stack allows)`;
  if (/memory/i.test(message)) return `${message} (out of memory)`;
  return message;
}

/**
 * The engine's wasm, compiled once per process. V8's baseline compiler only: a run filters one
 * reply, where optimising jq's 900 KB of wasm in the background costs more CPU than it saves
 * (docs/performance.md). The flag is process-wide, so it holds in the worker too.
 */
function compiledWasm(): Promise<object> {
  wasmModule ??= (async () => {
    const bytes = await wasmBytes();
    // Remembered as a change of V8's flags: no code cache is made after this run (./v8-flags.ts).
    setV8Flags('--liftoff-only');
    // The project's `lib` has no WebAssembly types; compile is all that is used.
    const { WebAssembly: wasm } = globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<object> } };
    return wasm.compile(bytes);
  })();
  return wasmModule;
}

/**
 * Set to true by the single executable's build only (src/build/exe.mjs, esbuild's define); an
 * undeclared name everywhere else, so `typeof` is the test.
 */
declare const RSI_SEA: boolean | undefined;

/**
 * `dist/jq.wasm` when running from the bundle (this module is then `dist/rsi.cjs`); the package's
 * own `jq.wasm` when running from source (tests). Inside the single executable there is no file
 * beside the script: the build embeds the same bytes as the SEA asset `jq.wasm`.
 */
async function wasmBytes(): Promise<Uint8Array> {
  if (typeof RSI_SEA !== 'undefined' && RSI_SEA) {
    const { getAsset } = await import('node:sea');
    return new Uint8Array(getAsset('jq.wasm'));
  }
  const { readFile } = await import('node:fs/promises');
  try {
    return await readFile(new URL('jq.wasm', import.meta.url));
  } catch {
    const { createRequire } = await import('node:module');
    return readFile(createRequire(import.meta.url).resolve('jq-wasm/jq.wasm'));
  }
}

/**
 * The worker's script: `dist/jq-worker.cjs` beside the bundle, the SEA asset of the same name in
 * the single executable, and from source (tests) the built file in the checkout's dist/ (`npm run
 * build` first; Node 20 cannot start a worker from TypeScript).
 */
async function workerSource(): Promise<{ url?: URL; code?: string }> {
  if (typeof RSI_SEA !== 'undefined' && RSI_SEA) {
    const { getAsset } = await import('node:sea');
    return { code: getAsset('jq-worker.cjs', 'utf8') };
  }
  const { existsSync } = await import('node:fs');
  const beside = new URL('jq-worker.cjs', import.meta.url);
  if (existsSync(beside)) return { url: beside };
  const built = new URL('../../dist/jq-worker.cjs', import.meta.url);
  if (existsSync(built)) return { url: built };
  throw new JqEngineError('--jq: the jq engine is missing (dist/jq-worker.cjs): run npm run build');
}

/**
 * jq's error line without its `jq: error` prefix and stdin's position (rsi gives jq one input, so
 * `(at /dev/stdin:0)` says nothing), e.g. `syntax error, unexpected end of file at <top-level>,
 * line 1, column 3` or `Cannot index number with "b"`.
 */
export function jqMessage(line: string): string {
  return line
    .replace(/^jq: error(?: \(at [^)]*\))?(?=[: ])/, '')
    .replace(/^: /, '')
    .replace(/^ /, '')
    .replace(/:$/, '')
    .trim();
}
