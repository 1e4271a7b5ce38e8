// A SOCKS5 server rsi did not write (@pondwader/socks5-server, MIT) on 127.0.0.1, for the proxy
// tests: no authentication or a user name and password, and host names only it resolves (`hosts`),
// so a request that bypassed it could not reach its target. `hits` records each CONNECT asked of it.
import type { AddressInfo, Server } from 'node:net';
import { createServer, defaultConnectionHandler } from '@pondwader/socks5-server';

export interface TestSocks {
  url: string;
  port: number;
  hits: { host: string; port: number; user?: string }[];
  stop(): Promise<void>;
}

export async function startSocks(
  options: { auth?: { username: string; password: string }; hosts?: Record<string, string> } = {},
): Promise<TestSocks> {
  const hits: TestSocks['hits'] = [];
  const server = createServer(options.auth ? { auth: options.auth } : {});
  server.setConnectionHandler((connection, sendStatus) => {
    hits.push({ host: connection.destAddress, port: connection.destPort, user: connection.username });
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
