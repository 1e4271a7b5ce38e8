/**
 * What the bundle gives undici for `node:http2` (src/build/bundle.mjs, its `alias`).
 * undici (which carries only proxied requests) requires `node:http2` as it loads, for ten
 * header-name constants; loading Node's http2 costs 13–16 ms of CPU on Node 22 and 24 (7 ms on 20),
 * and rsi never speaks HTTP/2 (undici negotiates it only with `allowH2`, which rsi leaves off). So the
 * constants are given here as the plain values they are (test/unit/http2-on-demand.test.ts checks
 * them against Node's), and anything else is Node's own module, loaded on first use.
 */
import type * as Http2 from 'node:http2';

const real = (): typeof Http2 => process.getBuiltinModule('node:http2') as typeof Http2;

export const constants = {
  HTTP2_HEADER_AUTHORITY: ':authority',
  HTTP2_HEADER_METHOD: ':method',
  HTTP2_HEADER_PATH: ':path',
  HTTP2_HEADER_SCHEME: ':scheme',
  HTTP2_HEADER_CONTENT_LENGTH: 'content-length',
  HTTP2_HEADER_EXPECT: 'expect',
  HTTP2_HEADER_STATUS: ':status',
  HTTP2_HEADER_PROTOCOL: ':protocol',
  NGHTTP2_REFUSED_STREAM: 7,
  NGHTTP2_CANCEL: 8,
} as const;

export const connect: typeof Http2.connect = ((...args: Parameters<typeof Http2.connect>) =>
  real().connect(...args)) as typeof Http2.connect;
