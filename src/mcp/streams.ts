/**
 * The event stream that carries one request's answer (Streamable HTTP: a POST answered with
 * `text/event-stream`), watched on its way to the SDK, which would otherwise wait out the request's
 * whole deadline when it ends early:
 *
 * - a stream that ends (or breaks) before any event id and before the answer cannot be resumed
 *   (there is no Last-Event-ID to resume from). It is sent again once, at once, when the request
 *   may be sent twice (`again`), and the new answer continues the same stream; otherwise, or when
 *   that one ends the same way, `lost` says so and the call fails at once;
 * - a stream with an event id is the SDK's to resume (GET with Last-Event-ID, client.ts counts);
 * - a server's `retry:` (how long to wait before resuming) is capped at RETRY_CAP_MS, so a server
 *   asking for ten minutes cannot hold a call past its deadline without a word.
 *
 * Only the `retry:` field is rewritten; events pass as they came (lines end in `\n`).
 */

/** The longest wait before resuming a stream that rsi accepts from a server's `retry:`. */
export const RETRY_CAP_MS = 5000;

export type LostWhy =
  /** Ended before any event id; not sent again (it may not be sent twice). */
  | { kind: 'ended'; again: false }
  /** Ended before any event id, sent again once, and that ended the same way or was refused. */
  | { kind: 'ended'; again: true; status?: number | undefined };

export interface StreamWatch {
  /** The JSON-RPC id of the request whose answer the stream carries. */
  id: string | number;
  /** Sends the request again (once); absent when it may not be sent twice. */
  again?: (() => Promise<Response>) | undefined;
  /** The stream ended before any event id and before the answer, for good. */
  lost(why: LostWhy): void;
  /** The request was sent again after its stream ended before any event id. */
  resent?: (() => void) | undefined;
  /** The call's signal: once it aborted, an end is no loss. */
  signal?: AbortSignal | undefined;
}

/** Only `retry:` capped: for a stream the SDK resumes itself (a GET with Last-Event-ID). */
export function capRetry(res: Response): Response {
  return rewrap(res, (emit, source, gone, reading) => pump(source, new Lines(emit), gone, reading));
}

/** The answer's stream, watched as above. */
export function watchEventStream(res: Response, watch: StreamWatch): Response {
  return rewrap(res, async (emit, first, gone, reading) => {
    const lines = new Lines(emit, watch.id);
    let source = first;
    let retried = false;
    for (;;) {
      let broke: unknown;
      await pump(source, lines, gone, reading).catch((error: unknown) => {
        broke = error ?? new Error('the event stream broke');
      });
      if (gone()) return;
      lines.flush();
      // Cut by rsi's own deadline or an abort: no loss of the server's, and the call's end says so.
      if (isAbort(broke) || watch.signal?.aborted) throw watch.signal?.aborted ? watch.signal.reason : broke;
      if (lines.answered || lines.sawId) return;
      if (!watch.again || retried) {
        watch.lost(retried ? { kind: 'ended', again: true } : { kind: 'ended', again: false });
        return;
      }
      retried = true;
      watch.resent?.();
      let next: Response;
      try {
        next = await watch.again();
      } catch (error) {
        if (watch.signal?.aborted) throw error;
        watch.lost({ kind: 'ended', again: true });
        return;
      }
      const type = next.headers.get('content-type') ?? '';
      if (next.ok && /^text\/event-stream\b/i.test(type) && next.body) {
        // A partial event of the first stream ends here.
        emit('\n');
        source = next.body;
        continue;
      }
      if (next.ok && /^application\/json\b/i.test(type)) {
        // The answer as JSON: the same message, as an event of this stream.
        const body = await next.text();
        emit(
          `\nevent: message\n${body
            .split(/\r\n|\r|\n/)
            .map((l) => `data: ${l}`)
            .join('\n')}\n\n`,
        );
        return;
      }
      await next.body?.cancel().catch(() => undefined);
      watch.lost({ kind: 'ended', again: true, status: next.status });
      return;
    }
  });
}

const isAbort = (error: unknown): boolean => {
  const name = (error as { name?: unknown } | undefined)?.name;
  return name === 'AbortError' || name === 'TimeoutError';
};

/** A new Response with the same status and headers whose body is what `run` emits from the old one. */
function rewrap(
  res: Response,
  run: (emit: (text: string) => void, source: ReadableStream<Uint8Array>, gone: () => boolean, reading: Reading) => Promise<void>,
): Response {
  if (!res.body) return res;
  const source = res.body;
  const encoder = new TextEncoder();
  // The reader went away (the SDK closed the transport): nothing more is read, sent or said, and the
  // stream being read (the first or the resent one) is cancelled.
  let cancelled = false;
  const reading: Reading = {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const emit = (text: string): void => {
        if (text && !cancelled) controller.enqueue(encoder.encode(text));
      };
      run(emit, source, () => cancelled, reading).then(
        () => {
          if (!cancelled) controller.close();
        },
        (error: unknown) => {
          if (!cancelled) controller.error(error);
        },
      );
    },
    cancel() {
      cancelled = true;
      return reading.reader?.cancel().catch(() => undefined);
    },
  });
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/** The reader of the stream being pumped, for a cancel to reach it. */
interface Reading {
  reader?: ReadableStreamDefaultReader<Uint8Array> | undefined;
}

async function pump(source: ReadableStream<Uint8Array>, lines: Lines, gone: () => boolean, reading: Reading): Promise<void> {
  const reader = source.getReader();
  reading.reader = reader;
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (gone()) {
        await reader.cancel().catch(() => undefined);
        return;
      }
      lines.push(decoder.decode(value, { stream: true }));
    }
    lines.push(decoder.decode());
  } finally {
    reading.reader = undefined;
    reader.releaseLock();
  }
}

/** SSE lines as they come: what they say (an id, the answer), and `retry:` capped. */
class Lines {
  private partial = '';
  private data: string[] = [];
  sawId = false;
  answered = false;

  constructor(
    private readonly emit: (text: string) => void,
    private readonly id?: string | number,
  ) {}

  push(text: string): void {
    const parts = (this.partial + text).split(/\r\n|\r|\n/);
    // A lone `\r` at the end may be the first half of `\r\n`: kept for the next chunk.
    this.partial = parts.pop() ?? '';
    for (const line of parts) this.line(line);
  }

  /** The last line, when the stream ended without a line break. */
  flush(): void {
    if (this.partial) {
      const line = this.partial;
      this.partial = '';
      this.line(line);
    }
  }

  private line(line: string): void {
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (line === '') {
      this.dispatch();
    } else if (field === 'id' && value !== '' && !value.includes('\0')) {
      this.sawId = true;
    } else if (field === 'data') {
      this.data.push(value);
    } else if (field === 'retry' && /^\d+$/.test(value)) {
      this.emit(`retry: ${Math.min(Number(value), RETRY_CAP_MS)}\n`);
      return;
    }
    this.emit(`${line}\n`);
  }

  private dispatch(): void {
    if (this.data.length === 0 || this.id === undefined) {
      this.data = [];
      return;
    }
    try {
      const message = JSON.parse(this.data.join('\n')) as { id?: unknown; result?: unknown; error?: unknown };
      if ((message.result !== undefined || message.error !== undefined) && String(message.id) === String(this.id)) this.answered = true;
    } catch {
      // Not JSON: the SDK's to judge.
    }
    this.data = [];
  }
}
