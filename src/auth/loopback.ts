/**
 * The loopback redirect receiver (RFC 8252 §7.3): binds 127.0.0.1 on the port it will use — port 0
 * or a fixed one — and reads back the port it got, so there is no probe-then-bind race. It answers
 * each callback only once the login knows the outcome, so the browser tab says what happened.
 *
 * It ignores what is not its own: a request whose Host is not the address rsi registered (a web
 * page reaching the port through DNS rebinding), or a callback whose `state` is missing or not the
 * one this sign-in sent (another local process guessing), is answered 400 and the listener keeps
 * waiting for the real redirect, so a forged request can no longer end the sign-in.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Callback {
  url: URL;
  /** Finishes the browser's request with a page saying how the sign-in went. */
  respond(ok: boolean, message: string): void;
}

export interface LoopbackReceiver {
  port: number;
  redirectUri: string;
  /** The `state` of the sign-in now waiting: only callbacks carrying it are delivered. */
  expectState(state: string): void;
  /** The next request to /callback. */
  next(signal: AbortSignal): Promise<Callback>;
  close(): Promise<void>;
}

export class PortInUseError extends Error {}

export async function startLoopbackReceiver(port: number, onIgnored?: (why: string) => void): Promise<LoopbackReceiver> {
  const waiting: Array<(cb: Callback) => void> = [];
  const queued: Callback[] = [];
  let state: string | undefined;
  let host = '';
  const refuse = (res: ServerResponse, why: string): void => {
    onIgnored?.(why);
    res.writeHead(400, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', connection: 'close' });
    res.end(resultPage(false, `This request was ignored (${why}); rsi is still waiting for the sign-in.`));
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    if ((req.headers.host ?? '').toLowerCase() !== host) return refuse(res, 'it was not addressed to this listener');
    const url = new URL(req.url ?? '/', `http://127.0.0.1`);
    if (req.method !== 'GET' || url.pathname !== '/callback') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
      return;
    }
    const given = url.searchParams.get('state');
    if (state === undefined || given !== state)
      return refuse(res, given === null ? 'it carries no state' : "its state is not this sign-in's");
    let answered = false;
    const cb: Callback = {
      url,
      respond: (ok, message) => {
        if (answered) return;
        answered = true;
        res.writeHead(ok ? 200 : 400, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', connection: 'close' });
        res.end(resultPage(ok, message));
      },
    };
    const waiter = waiting.shift();
    if (waiter) waiter(cb);
    else queued.push(cb);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(`port ${port} is in use`) : error),
    );
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  host = `127.0.0.1:${actual}`;
  return {
    port: actual,
    redirectUri: `http://127.0.0.1:${actual}/callback`,
    expectState: (value) => {
      state = value;
    },
    next: (signal) =>
      new Promise<Callback>((resolve, reject) => {
        const ready = queued.shift();
        if (ready) return resolve(ready);
        const onAbort = (): void => {
          const i = waiting.indexOf(take);
          if (i >= 0) waiting.splice(i, 1);
          reject(signal.reason);
        };
        const take = (cb: Callback): void => {
          signal.removeEventListener('abort', onAbort);
          resolve(cb);
        };
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        waiting.push(take);
      }),
    close: async () => {
      for (const cb of queued) cb.respond(false, 'This sign-in was cancelled.');
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

function resultPage(ok: boolean, message: string): string {
  const esc = message.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>rsi: ${ok ? 'signed in' : 'sign-in failed'}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;display:flex;min-height:90vh;align-items:center;justify-content:center;background:#f3f4f6;color:#111827}
main{background:#fff;border-radius:12px;padding:2rem 2.5rem;box-shadow:0 10px 30px rgb(0 0 0/.12);max-width:32rem}
h1{font-size:1.3rem;margin:0 0 .5rem;color:${ok ? '#059669' : '#b91c1c'}}</style></head>
<body><main><h1>${ok ? '✓ Signed in to rsi' : '✗ Sign-in failed'}</h1><p>${esc}</p><p>You can close this tab and return to your terminal.</p></main></body></html>`;
}
