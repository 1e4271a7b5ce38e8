import http2 from 'node:http2';
import { describe, expect, it } from 'vitest';
import * as onDemand from '../../src/http/http2-on-demand.js';

// The bundle hands undici this module for `node:http2` (src/build/bundle.mjs, its alias), so that a
// request does not load Node's http2 (docs/performance.md). It must read exactly as Node's does.
describe('http2-on-demand', () => {
  it('gives the constants undici reads, with Node’s values', () => {
    for (const [name, value] of Object.entries(onDemand.constants)) {
      expect(http2.constants[name as keyof typeof http2.constants], name).toBe(value);
    }
    expect(Object.keys(onDemand.constants)).toHaveLength(10);
  });

  it('covers every http2 constant undici’s HTTP/2 client destructures', async () => {
    const { readFileSync } = await import('node:fs');
    const source = readFileSync(new URL('../../node_modules/undici/lib/dispatcher/client-h2.js', import.meta.url), 'utf8');
    const block = /constants:\s*\{([^}]*)\}\s*\}\s*=\s*http2/.exec(source)?.[1];
    expect(block, 'undici no longer destructures http2.constants that way: recheck http2-on-demand.ts').toBeDefined();
    const names = (block ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    expect(names.sort()).toEqual(Object.keys(onDemand.constants).sort());
    // Any other member undici uses must be one the module passes through.
    const members = new Set([...source.matchAll(/\bhttp2\.([A-Za-z_]+)/g)].map((m) => m[1]));
    expect([...members].sort()).toEqual(['connect']);
  });

  it('passes connect through to Node’s http2', async () => {
    const session = onDemand.connect('http://127.0.0.1:9');
    session.on('error', () => {});
    expect(session.constructor.name).toBe('ClientHttp2Session');
    const closed = new Promise((resolve) => session.on('close', resolve));
    session.destroy();
    await closed;
  });
});
