/**
 * The API layer on a network of its own, for unit tests. In rsi the process's one Network is
 * owned by the Context and passed in (src/auth/session.ts); a test that builds the layer alone
 * owns both, and closes both.
 */
import { type HttpOptions, RetryingHttp } from '../../src/http/retrying-http.js';
import { Network } from '../../src/http/network.js';

export class TestHttp extends RetryingHttp {
  private readonly own: Network;

  constructor(options: HttpOptions) {
    const network = new Network({ env: {}, timeoutMs: options.timeoutMs, trace: options.trace });
    super(options, network);
    this.own = network;
  }

  override async close(): Promise<void> {
    await super.close();
    await this.own.close();
  }
}
