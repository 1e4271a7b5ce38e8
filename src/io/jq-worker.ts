/**
 * The `--jq` engine's thread (src/io/jq.ts starts it; docs/scripting.md, "`--jq`"). jq 1.8 runs
 * here, in a worker_threads Worker, so that the main thread stays free to hear Ctrl-C and SIGTERM
 * and can stop a program that never ends (`repeat(1)`) by terminating this thread, and so that the
 * engine's memory has a bound (the Worker's resource limits, the wasm heap's own 256 MB ceiling,
 * and a bounded amount of output in flight).
 *
 * jq-wasm runs jq's own `main`, as the jq command does: the reply's text is its stdin, so numbers
 * reach jq as literals. Three of the engine's imports are replaced (found by the names Emscripten
 * gives them, not by the minified keys):
 *
 * - `fd_write` for fds 1 and 2: jq-wasm would gather all output in memory until the program ends;
 *   here each output value is handed to the main thread as it is written (in order, with
 *   backpressure), and stderr (`debug`, `stderr`, `halt_error`, the error) likewise.
 * - `environ_sizes_get` / `environ_get`: Emscripten's stand-in environment (`USER=web_user`)
 *   becomes the real one the main thread passes, so `$ENV` and `env` are what jq would see.
 *
 * Built to dist/jq-worker.cjs (src/build/bundle.mjs), one CommonJS file with jq-wasm's glue inside,
 * so the single executable can start it from an asset as an `eval` worker.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadJq } from 'jq-wasm';

/** The little of WebAssembly used here (the project's `lib` has no WebAssembly types). */
interface Wasm {
  instantiate(module: object, imports: object): Promise<{ exports: Record<string, unknown> }>;
  Memory: abstract new (...args: never[]) => WasmMemory;
}
interface WasmMemory {
  buffer: ArrayBuffer;
}
type Imports = Record<string, unknown>;
const { WebAssembly: wasm } = globalThis as unknown as { WebAssembly: Wasm };

export interface JqWorkerData {
  /** jq's wasm (a WebAssembly.Module), compiled once by the main thread. */
  module: object;
  /** The process environment, for `$ENV`. */
  env: Record<string, string>;
  /** [0]: bytes of output posted and not yet written by the main thread (the backpressure). */
  inFlight: SharedArrayBuffer;
}

/** A job: compile (`input` null: jq reads no input, so nothing is evaluated) or run on one JSON text. */
export interface JqJob {
  id: number;
  expression: string;
  input: string | null;
  pretty: boolean;
}

export type JqWorkerMessage =
  /** Output values, each as jq wrote it (no trailing newline); `bytes` counts toward `inFlight`. */
  | { id: number; type: 'out'; values: string[]; bytes: number }
  /** Text jq wrote to stderr on purpose (`debug`, `stderr`, `halt_error`). */
  | { id: number; type: 'stderr'; text: string }
  /** The end of a job: jq's exit code and its error line, if it ended with one. */
  | { id: number; type: 'done'; exitCode: number; error?: string; compileErrors?: string[] }
  /** The engine broke (its stack, its memory): this thread is of no further use. */
  | { id: number; type: 'fatal'; message: string };

/** Post output once this much is gathered or this long has passed, so a slow program still streams. */
const POST_BYTES = 16 * 1024;
const POST_MS = 50;
/** Wait for the main thread once this much output is posted and not yet written. */
const IN_FLIGHT_MAX = 1024 * 1024;

const data = workerData as JqWorkerData;
const port = parentPort!;
const inFlight = new Int32Array(data.inFlight);

/** The job being run, and where its output is on the way out. */
let job: JqJob | undefined;
let memory: WasmMemory | undefined;
const out = new TextDecoder();
const err = new TextDecoder();
/** Stdout split into top-level values: jq ends each with a newline outside any string or bracket. */
let value = '';
let depth = 0;
let inString = false;
let escaped = false;
let values: string[] = [];
let bytes = 0;
let lastPost = Date.now();
/** Stderr not yet posted: the last line is held while it may be the run's error. */
let errText = '';

function postValues(): void {
  if (!job || values.length === 0) return;
  port.postMessage({ id: job.id, type: 'out', values, bytes } satisfies JqWorkerMessage);
  values = [];
  lastPost = Date.now();
  // Wait (the thread sleeps; a terminate still ends it) until the main thread has written enough.
  let now = Atomics.add(inFlight, 0, bytes) + bytes;
  bytes = 0;
  while (now > IN_FLIGHT_MAX) {
    Atomics.wait(inFlight, 0, now);
    now = Atomics.load(inFlight, 0);
  }
}

function onStdout(text: string): void {
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (escaped) escaped = false;
      else if (c === 0x5c) escaped = true;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) depth++;
    else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x0a && depth === 0) {
      const v = value + text.slice(start, i);
      value = '';
      start = i + 1;
      values.push(v);
      bytes += v.length + 1;
    }
  }
  value += text.slice(start);
  if (bytes >= POST_BYTES || (values.length > 0 && Date.now() - lastPost >= POST_MS)) postValues();
}

/** Complete stderr lines go out at once, except a `jq: error` line, which may be the run's error. */
function onStderr(text: string): void {
  errText += text;
  let cut = errText.length;
  // A held line that keeps growing is not jq's error (that is one line and the run's last words).
  if (errText.length <= 65536) {
    const at = errText.startsWith('jq: error') ? 0 : errText.lastIndexOf('\njq: error') + 1;
    if (at > 0 || errText.startsWith('jq: error')) cut = at;
  }
  if (cut > 0 && job) {
    postValues();
    port.postMessage({ id: job.id, type: 'stderr', text: errText.slice(0, cut) } satisfies JqWorkerMessage);
    errText = errText.slice(cut);
  }
}

function view(): DataView {
  return new DataView(memory!.buffer);
}

/** Finds an Emscripten import by the name it was defined with. */
function importNamed(imports: Imports, name: string): string {
  const key = Object.keys(imports).find((k) => (imports[k] as { name?: string }).name === name);
  if (key === undefined) throw new Error(`jq-wasm has no import ${name}`);
  return key;
}

const encoder = new TextEncoder();
const environment = Object.entries(data.env).map(([k, v]) => encoder.encode(`${k}=${v}\0`));

/** The engine, loaded once; jobs wait for it in the order they came. */
const engine = loadJq({
  instantiateWasm(imports, onSuccess) {
    const env = (imports as { a: Imports }).a;
    const fdWrite = env[importNamed(env, '_fd_write')] as (fd: number, iov: number, n: number, pnum: number) => number;
    env[importNamed(env, '_fd_write')] = (fd: number, iov: number, iovcnt: number, pnum: number): number => {
      if (fd !== 1 && fd !== 2) return fdWrite(fd, iov, iovcnt, pnum);
      const v = view();
      let written = 0;
      for (let i = 0; i < iovcnt; i++) {
        const ptr = v.getUint32(iov + i * 8, true);
        const len = v.getUint32(iov + i * 8 + 4, true);
        const chunk = new Uint8Array(memory!.buffer, ptr, len);
        if (fd === 1) onStdout(out.decode(chunk, { stream: true }));
        else onStderr(err.decode(chunk, { stream: true }));
        written += len;
      }
      view().setUint32(pnum, written, true);
      return 0;
    };
    env[importNamed(env, '_environ_sizes_get')] = (pcount: number, psize: number): number => {
      const v = view();
      v.setUint32(pcount, environment.length, true);
      v.setUint32(
        psize,
        environment.reduce((n, e) => n + e.length, 0),
        true,
      );
      return 0;
    };
    env[importNamed(env, '_environ_get')] = (penviron: number, buf: number): number => {
      const bytesView = new Uint8Array(memory!.buffer);
      const v = view();
      let at = buf;
      environment.forEach((e, i) => {
        v.setUint32(penviron + i * 4, at, true);
        bytesView.set(e, at);
        at += e.length;
      });
      return 0;
    };
    void wasm.instantiate(data.module, imports).then((instance) => {
      memory = Object.values(instance.exports).find((e): e is WasmMemory => e instanceof wasm.Memory);
      onSuccess(instance as never, data.module as never);
    });
  },
});

port.on('message', (next: JqJob) => {
  engine.then(
    (jq) => runJob(jq, next),
    (error: Error) => port.postMessage({ id: next.id, type: 'fatal', message: error.message } satisfies JqWorkerMessage),
  );
});

function runJob(jq: Awaited<typeof engine>, next: JqJob): void {
  job = next;
  value = '';
  depth = 0;
  inString = false;
  escaped = false;
  errText = '';
  let exitCode: number;
  try {
    // `--` so that an expression starting with `-` is the program, not an option.
    const flags = next.pretty ? ['--'] : ['-c', '--'];
    exitCode = jq.raw(next.input ?? '', next.expression, flags).exitCode;
  } catch (error) {
    // A trap (stack or heap exhausted) leaves the Emscripten runtime aborted: the main thread ends
    // this thread and says so.
    // jq's last words before the trap, if it had any ("jq: error: cannot allocate memory").
    const said = (errText + err.decode()).trim();
    port.postMessage({
      id: next.id,
      type: 'fatal',
      message: said.startsWith('jq: error') ? said : (error as Error).message,
    } satisfies JqWorkerMessage);
    return;
  }
  onStdout(out.decode());
  onStderr(err.decode());
  postValues();
  const done: JqWorkerMessage & { type: 'done' } = { id: next.id, type: 'done', exitCode };
  // What is left of stderr: the compile errors (exit 3) or the run's error line (exit 5).
  const rest = errText;
  if (exitCode === 3 && rest.startsWith('jq: ')) {
    done.compileErrors = rest.split('\n').filter((l) => l.startsWith('jq: error'));
  } else if (exitCode !== 0 && rest.startsWith('jq: error')) {
    done.error = rest.replace(/\n$/, '');
  } else if (rest !== '') {
    port.postMessage({ id: next.id, type: 'stderr', text: rest } satisfies JqWorkerMessage);
  }
  port.postMessage(done);
  job = undefined;
}
