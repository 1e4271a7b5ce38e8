// Types for the undici modules the network path imports directly instead of undici's index
// (which also loads fetch, WebSocket, cookies, caches and mocks). test/unit/http-network.test.ts
// checks these shapes, so an undici upgrade that moves them fails a test, not a user.
declare module 'undici/lib/dispatcher/proxy-agent.js' {
  import type { ProxyAgent } from 'undici';
  const ProxyAgentClass: typeof ProxyAgent;
  export default ProxyAgentClass;
}

declare module 'undici/lib/dispatcher/socks5-proxy-agent.js' {
  /** Made once, only to spend undici's one-time ExperimentalWarning quietly (src/http/network.ts). */
  class Socks5ProxyAgent {
    constructor(proxyUrl: string);
    close(): Promise<void>;
  }
  export default Socks5ProxyAgent;
}

declare module 'undici/lib/dispatcher/dispatcher.js' {
  import type { Dispatcher } from 'undici';
  const DispatcherClass: typeof Dispatcher;
  export default DispatcherClass;
}

declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  /** undici's `Dispatcher.prototype.request`: call it with the dispatcher as `this`. */
  function request(this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  export default request;
}

declare module 'undici/lib/api/api-connect.js' {
  import type { Dispatcher } from 'undici';
  /** undici's `Dispatcher.prototype.connect` (the CONNECT tunnel ProxyAgent opens). */
  function connect(this: Dispatcher, options: Dispatcher.ConnectOptions): Promise<Dispatcher.ConnectData>;
  export default connect;
}
