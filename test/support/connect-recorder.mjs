// Loaded into every Node process of a run with NODE_OPTIONS=--import (test/journeys/privacy.test.ts):
// records every TCP connection attempt and host-name lookup to a host other than loopback into
// $RSI_CONNECT_LOG (one JSON line each, with the process's argv), and refuses it, so a run can
// prove that nothing but the service it was pointed at is contacted, whichever client tries (Node's
// http, undici, fetch, a dependency).
import { appendFileSync } from 'node:fs';
import dns from 'node:dns';
import net from 'node:net';

const log = process.env.RSI_CONNECT_LOG;
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+|localhost)$/i;

function record(kind, host, port) {
  appendFileSync(log, `${JSON.stringify({ kind, host, port, argv: process.argv.slice(1) })}\n`);
}

function isRemote(host) {
  return typeof host === 'string' && host !== '' && !LOOPBACK.test(host.replace(/^\[|\]$/g, ''));
}

if (log) {
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (...args) {
    // Node calls it with (options[, cb]), (port[, host][, cb]), (path[, cb]) or its normalised array.
    const first = Array.isArray(args[0]) ? args[0][0] : args[0];
    const options =
      typeof first === 'object' && first !== null ? first : typeof first === 'number' ? { port: first, host: args[1] } : { path: first };
    if (options.path === undefined && isRemote(options.host ?? 'localhost')) {
      record('connect', options.host, options.port);
      this.destroy(new Error(`connect-recorder: refused ${options.host}:${options.port}`));
      return this;
    }
    return connect.apply(this, args);
  };
  const lookup = dns.lookup;
  dns.lookup = function (host, ...rest) {
    if (isRemote(host) && !net.isIP(host)) record('lookup', host, undefined);
    return lookup.call(this, host, ...rest);
  };
}
