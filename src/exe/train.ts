/**
 * The build's training run for the single executable's code cache (src/build/exe.mjs, the host's
 * target only), never part of the binary: run by the very Node the binary embeds as
 *
 *   node train.cjs <rsi.cjs> <rsi.cache>
 *
 * it compiles the bundle as the binary will (src/exe/load.ts), runs the commands most runs are
 * made of (a command's help, one GET as JSON and as a table, against a loopback
 * server answering the one request with a canned page) and writes V8's code cache of the script
 * as it stands after them: every function those runs compiled is in it, ready, where a cache made
 * before running holds the top level only (docs/performance.md). A run that does not succeed
 * fails the build, so a reply the schemas stop accepting is seen here, not as a slower binary.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { compileBody } from './load.js';

/** The one reply the GET gets: a page of `GET /keywords` (KeywordHit items and the page's meta). */
const PAGE = {
  data: [
    {
      id: '6f0c3a2e-5d1b-4c8e-9a7f-2b3c4d5e6f70',
      name: 'EGFR',
      type: 'target',
      synonyms: ['ERBB1', 'HER1', 'Epidermal growth factor receptor'],
    },
  ],
  meta: { page: 1, pageSize: 10 },
};

// Not the root's help: the boot script answers it before the bundle (src/exe/boot.ts), and
// training it put 73 kB in the cache that every run deserialised for nothing.
const RUNS: readonly (readonly string[])[] = [
  ['keywords', 'search', '--help'],
  ['keywords', 'search', 'egfr', '--json'],
  ['keywords', 'search', 'egfr'],
];

async function train(bodyFile: string, cacheFile: string): Promise<void> {
  const body = compileBody(readFileSync(bodyFile, 'latin1'));
  const server = createServer((req, res) => {
    const found = req.method === 'GET' && req.url?.startsWith('/api/v1/keywords?');
    res.writeHead(found ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(found ? PAGE : { error: { code: 'not_found', message: `${req.method} ${req.url}` } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const home = mkdtempSync(join(tmpdir(), 'rsi-train-'));
  try {
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: home,
      XDG_CONFIG_HOME: join(home, 'config'),
      XDG_CACHE_HOME: join(home, 'cache'),
      RSI_CONFIG_DIR: join(home, 'rsi'),
      RSI_NO_UPDATE_NOTIFIER: '1',
      RSI_TOKEN: 'training-token',
      RSI_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    };
    for (const argv of RUNS) {
      let err = '';
      const stderr = new Writable({
        write(chunk, _encoding, done) {
          err += String(chunk);
          done();
        },
      });
      const stdout = new Writable({ write: (_chunk, _encoding, done) => done() });
      const code = await body.main({ argv, env, stdio: { stdin: Readable.from([]), stdout, stderr } });
      if (code !== 0) throw new Error(`training run ${JSON.stringify(argv)} exited ${code}: ${err.trim()}`);
    }
    writeFileSync(cacheFile, body.script.createCachedData());
  } finally {
    server.closeAllConnections();
    server.close();
    rmSync(home, { recursive: true, force: true });
  }
}

const [bodyFile, cacheFile] = process.argv.slice(2);
if (!bodyFile || !cacheFile) throw new Error('usage: train.cjs <rsi.cjs> <rsi.cache>');
train(bodyFile, cacheFile).catch((error: unknown) => {
  process.stderr.write(`train: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
