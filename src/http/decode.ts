/**
 * Reading a reply's body: the Content-Encoding undone as curl undoes it, and the size capped after
 * decoding (a small gzip bomb stops at the cap).
 *
 * A body that does not decode as its header says (a proxy that mislabels a page, a gzip stream cut
 * short while the HTTP message itself was whole) is not a network failure: it is one error naming
 * the encoding, and retrying would only fetch the same bytes again. "deflate" is accepted both as
 * RFC 9110 means it (a zlib stream) and as raw deflate, which some servers send and curl reads.
 */
import type { Readable } from 'node:stream';

export interface BodyErrors {
  tooLarge(): Error;
  /** The body is not what `encoding` says; `detail` is zlib's reason ("incorrect header check"). */
  undecodable(encoding: string, detail: string): Error;
  /** An encoding this Node cannot undo (zstd before Node 22.15, compress, anything unknown). */
  unsupported(encoding: string): Error;
}

type Zlib = typeof import('node:zlib') & { createZstdDecompress?: () => import('node:stream').Transform };
type Stream = Pick<typeof import('node:stream'), 'Transform' | 'PassThrough' | 'pipeline'>;

/** The encodings, in the order the server applied them; "identity" and empty entries dropped. */
export function contentEncodings(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e && e !== 'identity');
}

export async function readBody(body: Readable, headers: Record<string, string>, maxBytes: number, errors: BodyErrors): Promise<Buffer> {
  const encodings = contentEncodings(headers['content-encoding']);
  const declared = Number(headers['content-length']);
  if (encodings.length === 0 && Number.isFinite(declared) && declared > maxBytes) {
    body.destroy();
    throw errors.tooLarge();
  }
  if (encodings.length === 0) return collect(body, maxBytes, errors, () => undefined);

  const [zlib, stream] = await Promise.all([import('node:zlib') as Promise<Zlib>, import('node:stream')]);
  // Undone in the reverse of the order the server applied them.
  const decoders = encodings.reverse().map((encoding) => {
    const decoder = decoderFor(zlib, encoding, stream);
    if (!decoder) {
      body.destroy();
      throw errors.unsupported(encoding);
    }
    return { encoding, decoder };
  });
  // The first error a decoder raised itself: zlib's (with an errno), not one pipeline passed on
  // from a connection that broke upstream, which stays a network failure.
  let failed: { encoding: string; detail: string } | undefined;
  const upstream = new Set<unknown>();
  body.once('error', (error) => upstream.add(error));
  for (const { encoding, decoder } of decoders) {
    decoder.once('error', (error: Error & { errno?: unknown }) => {
      if (failed === undefined && !upstream.has(error) && typeof error.errno === 'number') failed = { encoding, detail: error.message };
      upstream.add(error);
    });
  }
  // An empty body has nothing to decode (HEAD, 204, 304, an empty reply labelled gzip): curl
  // returns it empty, where zlib would say "unexpected end of file".
  let raw = 0;
  const counter = new stream.PassThrough().on('data', (chunk: Buffer) => (raw += chunk.length));
  const decoded = stream.pipeline([body, counter, ...decoders.map((d) => d.decoder)], () => undefined) as unknown as Readable;
  return collect(decoded, maxBytes, errors, () => {
    if (failed === undefined) return undefined;
    return raw === 0 ? Buffer.alloc(0) : errors.undecodable(failed.encoding, failed.detail);
  });
}

/** Reads `stream` to the end under the cap; `onError` may turn a failure into a result or an error. */
async function collect(stream: Readable, maxBytes: number, errors: BodyErrors, onError: () => Buffer | Error | undefined): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        stream.destroy();
        throw errors.tooLarge();
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    const instead = onError();
    if (instead instanceof Buffer) return instead;
    throw instead ?? error;
  }
  return Buffer.concat(chunks);
}

function decoderFor(zlib: Zlib, encoding: string, stream: Stream) {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return inflateEither(zlib, stream);
    case 'br':
      return zlib.createBrotliDecompress();
    case 'zstd':
      return zlib.createZstdDecompress?.();
    default:
      return undefined;
  }
}

/**
 * "deflate" as curl reads it: a zlib stream (RFC 1950, what the name means) or a raw deflate one
 * (RFC 1951, what some servers send), told apart by the zlib header's first two bytes: compression
 * method 8 and a check that makes them a multiple of 31.
 */
function inflateEither(zlib: Zlib, stream: Stream): import('node:stream').Transform {
  let inner: import('node:zlib').Inflate | import('node:zlib').InflateRaw | undefined;
  let head = Buffer.alloc(0);
  const start = (out: import('node:stream').Transform) => {
    const zlibHeader = head.length >= 2 && (head[0]! & 0x0f) === 8 && ((head[0]! << 8) | head[1]!) % 31 === 0;
    const made = zlibHeader ? zlib.createInflate() : zlib.createInflateRaw();
    made.on('data', (chunk: Buffer) => out.push(chunk));
    made.once('error', (error) => out.destroy(error));
    inner = made;
    return made;
  };
  return new stream.Transform({
    // Held back until two bytes have come, then everything goes to the inflater chosen.
    transform(chunk: Buffer, _encoding, done) {
      if (inner) return void inner.write(chunk, () => done());
      head = Buffer.concat([head, chunk]);
      if (head.length < 2) return done();
      start(this).write(head, () => done());
    },
    flush(done) {
      // A single byte: raw inflate says it ended early, as it should.
      if (!inner && head.length > 0) start(this).write(head);
      if (!inner) return done();
      inner.once('end', () => done());
      inner.end();
    },
  });
}

/**
 * `body` as it arrives, failing once more than `max` bytes came; `done` runs when it ends either
 * way (the attempt's deadline stops there).
 */
export async function capStream(
  body: import('node:stream').Readable,
  max: number,
  tooLarge: () => Error,
  done: () => void,
): Promise<import('node:stream').Readable> {
  const { Transform, pipeline } = await import('node:stream');
  let seen = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, next) {
      seen += chunk.length;
      if (seen > max) next(tooLarge());
      else next(null, chunk);
    },
  });
  pipeline(body, counted, () => done());
  return counted;
}
