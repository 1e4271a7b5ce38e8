// A SOCKS5 server rsi did not write (@pondwader/socks5-server, MIT) on 127.0.0.1, for the proxy
// tests: no authentication or a user name and password, and host names only it resolves (`hosts`),
// so a request that bypassed it could not reach its target, and hosts it refuses (`refuse`: a
// target that is down, without a port that must stay free meanwhile). `hits` records each CONNECT asked of it.
import type { AddressInfo, Server } from 'node:net';
import { createServer, defaultConnectionHandler } from '@pondwader/socks5-server';

export interface TestSocks {
  url: string;
  port: number;
  hits: { host: string; port: number; user?: string }[];
  stop(): Promise<void>;
}

export async function startSocks(
  options: {
    auth?: { username: string; password: string };
    hosts?: Record<string, string>;
    /** Hosts it refuses (SOCKS5 reply 5, connection refused) without trying them, as a proxy whose target is down. */
    refuse?: readonly string[];
  } = {},
): Promise<TestSocks> {
  const hits: TestSocks['hits'] = [];
  const server = createServer(options.auth ? { auth: options.auth } : {});
  server.setConnectionHandler((connection, sendStatus) => {
    hits.push({ host: connection.destAddress, port: connection.destPort, user: connection.username });
    // The package writes a refusal (reply 5 …) and destroys the socket at once, which drops the
    // reply unsent when the write did not go out at once (a busy machine: CI saw only the close).
    // A proxy's refusal is sent whole, then its connection closed: that is what the tests ask of rsi.
    const socket = connection.socket;
    const destroy = socket.destroy;
    socket.destroy = (error?: Error) => {
      socket.destroy = destroy;
      if (error) return socket.destroy(error);
      socket.end(() => socket.destroy());
      return socket;
    };
    if (options.refuse?.includes(connection.destAddress)) return sendStatus('CONNECTION_REFUSED');
    connection.destAddress = options.hosts?.[connection.destAddress] ?? connection.destAddress;
    return defaultConnectionHandler(connection, sendStatus);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', () => ready()));
  // The package keeps its net.Server private; its address is the port.
  const net = (server as unknown as { server: Server }).server;
  const port = (net.address() as AddressInfo).port;
  return {
    url: `socks5h://127.0.0.1:${port}`,
    port,
    hits,
    stop: () => new Promise<void>((done) => server.close(() => done())),
  };
}
