/**
 * A stub HTTP server on loopback for tests that need a service other than the sandbox (a registry,
 * an API that replies oddly, a server that never answers): it listens on an ephemeral port, answers
 * with the test's handler and records every request it is sent. The one home for such a server: a
 * test that needs one uses this rather than a createServer of its own.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** The whole body ('' with `streaming`, where the handler reads it). */
  body: string;
}

export type StubHandler = (req: IncomingMessage, res: ServerResponse, body: string) => unknown;

export interface StubOptions {
  /**
   * Call the handler as soon as the request's head arrives, its body unread (the handler reads
   * it, or answers before it ends). Default: once the whole body is in, which is handed over.
   */
  streaming?: boolean;
}

export interface StubServer {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  /** Every request, in the order they arrived; a test clears it with `requests.length = 0`. */
  readonly requests: StubRequest[];
  /** Closes the server and every connection still open. */
  close(): Promise<void>;
}

export async function startStub(handler: StubHandler, options: StubOptions = {}): Promise<StubServer> {
  const requests: StubRequest[] = [];
  const server = createServer((req, res) => {
    const request: StubRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: '' };
    requests.push(request);
    if (options.streaming) return void handler(req, res, '');
    req.setEncoding('utf8');
    req.on('data', (c: string) => (request.body += c));
    req.on('end', () => void handler(req, res, request.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    server,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
