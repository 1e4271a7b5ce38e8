#!/usr/bin/env node
// A non-interactive "browser" for $BROWSER in tests and the demo: it follows the authorization
// URL's redirects, which, against a sandbox started with --auto-approve, reach rsi's loopback
// callback. It exits once the last page is read. node:http rather than fetch: fetch's first use
// loads undici and compiles its WebAssembly HTTP parser, ~0.14 s of CPU in a process this short
// (measured: 0.23 s against 0.09 s), and the suite starts one per sign-in.
import { lookup as dnsLookup } from 'node:dns';
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';

// RSI_TEST_HOSTS=name=address,…: host names only a test's proxy resolves, resolved here too, as a
// browser behind that proxy would reach them.
const hosts = Object.fromEntries(
  (process.env.RSI_TEST_HOSTS ?? '')
    .split(',')
    .filter(Boolean)
    .map((pair) => pair.split('=')),
);
function lookup(hostname, options, callback) {
  const address = hosts[hostname.toLowerCase()];
  if (!address) return dnsLookup(hostname, options, callback);
  if (options.all) return callback(null, [{ address, family: address.includes(':') ? 6 : 4 }]);
  return callback(null, address, address.includes(':') ? 6 : 4);
}

/** One GET; resolves with the redirect target, or undefined once a page (not a redirect) is read. */
function step(url) {
  return new Promise((resolve, reject) => {
    const get = url.protocol === 'https:' ? httpsGet : httpGet;
    get(url, { lookup }, (res) => {
      const location = res.statusCode >= 300 && res.statusCode < 400 ? res.headers.location : undefined;
      res.resume();
      res.on('end', () => resolve(location ? new URL(location, url) : undefined));
      res.on('error', reject);
    }).on('error', reject);
  });
}

try {
  let url = new URL(process.argv[process.argv.length - 1]);
  for (let hops = 0; url && hops < 20; hops++) url = await step(url);
} catch (error) {
  process.stderr.write(`fake-browser: ${error.message}\n`);
  process.exitCode = 1;
}
