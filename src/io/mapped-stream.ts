/**
 * A Writable that rewrites every chunk (`map`) and writes it straight through to a terminal
 * stream: no buffer of its own, so its lines keep their order with anything written to the raw
 * stream (the live progress line, prompts), and its events (`drain`, `error`, `close`, `finish`)
 * are the target's. The sanitising stderr (sanitize.ts) and the ASCII terminal (ascii.ts) are two
 * maps over it.
 */
import { Writable } from 'node:stream';

type Listener = (...args: any[]) => void;
const DELEGATED = new Set<string | symbol>(['drain', 'error', 'close', 'finish']);

export interface MappedStreamOptions {
  /**
   * `end()` writes its last chunk and leaves the target open (prompt libraries end their output
   * when a prompt closes, and the terminal must stay usable for whatever comes next).
   */
  endLeavesTargetOpen?: boolean;
}

export function mappedStream(target: Writable, map: (text: string) => string, options: MappedStreamOptions = {}): Writable {
  return new MappedStream(target, map, options.endLeavesTargetOpen === true);
}

class MappedStream extends Writable {
  constructor(
    private readonly target: Writable,
    private readonly map: (text: string) => string,
    private readonly endLeavesTargetOpen: boolean,
  ) {
    super();
  }

  override write(chunk: unknown, encoding?: unknown, cb?: unknown): boolean {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk);
    const callback = typeof encoding === 'function' ? encoding : cb;
    return this.target.write(this.map(text), callback as (error?: Error | null) => void);
  }

  override end(...args: unknown[]): this {
    if (!this.endLeavesTargetOpen) return super.end(...(args as []));
    const callback = args.find((a) => typeof a === 'function') as (() => void) | undefined;
    const chunk = typeof args[0] === 'function' ? undefined : args[0];
    if (chunk !== undefined && chunk !== null) this.write(chunk);
    if (callback) queueMicrotask(callback);
    return this;
  }

  override on(event: string | symbol, listener: Listener): this {
    if (DELEGATED.has(event)) this.target.on(event, listener);
    else super.on(event, listener);
    return this;
  }

  override once(event: string | symbol, listener: Listener): this {
    if (DELEGATED.has(event)) this.target.once(event, listener);
    else super.once(event, listener);
    return this;
  }

  override off(event: string | symbol, listener: Listener): this {
    if (DELEGATED.has(event)) this.target.off(event, listener);
    else super.off(event, listener);
    return this;
  }

  override removeListener(event: string | symbol, listener: Listener): this {
    return this.off(event, listener);
  }
}
