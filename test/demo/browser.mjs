#!/usr/bin/env node
// A stand-in browser for the demo: `BROWSER=test/demo/browser.mjs rsi login` runs it with the
// authorization URL. It GETs the URL and follows redirects; against a sandbox started with
// --auto-approve that lands on rsi's loopback callback, which completes the login.
const url = process.argv[2];
if (!url) {
  console.error('usage: browser.mjs <url>');
  process.exit(2);
}
try {
  const res = await fetch(url, { redirect: 'follow' });
  await res.text();
  if (!res.ok) {
    console.error(`browser.mjs: ${res.status} from ${new URL(res.url).pathname}`);
    process.exit(1);
  }
} catch (error) {
  console.error(`browser.mjs: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
