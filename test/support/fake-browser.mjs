#!/usr/bin/env node
// A non-interactive "browser" for $BROWSER in tests and the demo: it follows the authorization
// URL's redirects, which, against a sandbox started with --auto-approve, reach rsi's loopback
// callback. It exits at once; the request completes in the background like a real browser tab.
const url = process.argv[process.argv.length - 1];
try {
  const res = await fetch(url, { redirect: 'follow' });
  await res.text();
} catch (error) {
  process.stderr.write(`fake-browser: ${error.message}\n`);
  process.exitCode = 1;
}
