// The licence notices that travel with rsi: its own LICENSE, and dist/THIRD-PARTY-NOTICES.txt with
// the full licence text of every package esbuild puts in the bundle (asked of esbuild here again,
// not of package.json), plus jq's and Oniguruma's for jq.wasm. A package without a licence text
// stops the build.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { NOTICES, options, workerOptions } from '../../src/build/bundle.mjs';
import { bundledPackages, renderNotices } from '../../src/build/notices.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const temp = mkdtempSync(join(tmpdir(), 'rsi-notices-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** `name version (licence)` headings of the notice file's sections. */
function sections(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const parts = text.split(/^={78}\n(.+)\n={78}\n/m);
  for (let i = 1; i < parts.length; i += 2) out.set(parts[i]!, parts[i + 1]!.trim());
  return out;
}

describe('LICENSE', () => {
  it("is rsi's own MIT licence, as package.json says", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { license: string };
    expect(pkg.license).toBe('MIT');
    const text = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    expect(text).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} /);
    expect(text).toContain('The above copyright notice and this permission notice shall be included in all');
  });
});

describe('dist/THIRD-PARTY-NOTICES.txt', () => {
  it('has a section with licence text for every package in the bundle, and for jq and Oniguruma', async () => {
    const main = await build({ ...options, write: false, logLevel: 'silent' });
    const worker = await build({ ...workerOptions, write: false, logLevel: 'silent' });
    const bundled = bundledPackages({ inputs: { ...main.metafile.inputs, ...worker.metafile.inputs } }, ROOT);
    // What the bundle is known to hold today; more is fine, fewer means the metafile walk broke.
    expect(bundled.map((p) => p.name)).toEqual(expect.arrayContaining(['commander', 'zod', 'oauth4webapi', 'jq-wasm', 'signal-exit']));
    const text = readFileSync(join(ROOT, 'dist', NOTICES), 'utf8');
    const found = sections(text);
    for (const p of bundled) {
      const body = found.get(`${p.name} ${p.version} (${p.license})`);
      expect(body, `${p.name}@${p.version} has no notice in dist/${NOTICES} (run npm run build)`).toBeDefined();
      expect(body!.length).toBeGreaterThan(100);
    }
    const jq = [...found].find(([head]) => head.startsWith('jq (in jq.wasm) 1.8.2'));
    expect(jq?.[1]).toContain('jq is copyright (C) 2012 Stephen Dolan');
    const onig = [...found].find(([head]) => head.startsWith('Oniguruma (in jq.wasm)'));
    expect(onig?.[1]).toContain('K.Kosako');
    // Nested copies are told apart: proper-lockfile brings signal-exit 3 beside the top-level 4.
    expect(new Set(bundled.filter((p) => p.name === 'signal-exit').map((p) => p.version)).size).toBe(2);
  });

  it('a bundled package without a licence file stops the build, naming it', () => {
    const folder = join(temp, 'node_modules', '@acme', 'unlicensed');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: '@acme/unlicensed', version: '1.2.3', license: 'MIT' }));
    writeFileSync(join(folder, 'index.js'), 'export {};\n');
    writeFileSync(join(folder, 'README.md'), 'MIT licensed, says the readme\n');
    const metafile = { inputs: { 'node_modules/@acme/unlicensed/index.js': { bytes: 11, imports: [] } } };
    expect(() => bundledPackages(metafile, temp)).toThrow(/@acme\/unlicensed@1\.2\.3 .* has no licence text/);

    // With a licence file (any of the usual names) it is listed, text and all.
    writeFileSync(join(folder, 'LICENCE.txt'), 'Permission is hereby granted, free of charge …\n');
    const [notice] = bundledPackages(metafile, temp);
    expect(notice).toMatchObject({ name: '@acme/unlicensed', version: '1.2.3', license: 'MIT' });
    expect(renderNotices('T', [notice!])).toContain('@acme/unlicensed 1.2.3 (MIT)\n' + '='.repeat(78) + '\n\nPermission is hereby granted');
  });
});
