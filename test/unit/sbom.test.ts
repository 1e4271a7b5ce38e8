// What is inside rsi is visible to scanners: dist/sbom.cdx.json (CycloneDX JSON) lists every package
// the bundle holds, from the same list as dist/THIRD-PARTY-NOTICES.txt, with jq and Oniguruma
// (inside jq.wasm) by package URL and CPE; `npm run audit:bundled` asks the registry's advisory
// database about it (against a stub registry on loopback here) and is quiet but honest offline.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audit, auditRequest } from '../../src/build/audit.mjs';
import { NOTICES, SBOM } from '../../src/build/bundle.mjs';
import { jqWasmNotices, renderSbom, sbomSubject } from '../../src/build/notices.mjs';
import { startStub, type StubServer } from '../support/stub-server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
const sbomFile = join(ROOT, 'dist', SBOM);
const sbom = JSON.parse(readFileSync(sbomFile, 'utf8')) as {
  bomFormat: string;
  specVersion: string;
  metadata: { component: { name: string; version: string; purl: string }; timestamp?: string };
  serialNumber?: string;
  components: { name: string; group?: string; version: string; purl: string; cpe?: string; licenses: unknown[] }[];
  dependencies: { ref: string; dependsOn: string[] }[];
};

describe('dist/sbom.cdx.json', () => {
  it('is CycloneDX 1.5 JSON about this package, with no timestamp or serial number (the tarball packs to the same bytes)', () => {
    expect(sbom.bomFormat).toBe('CycloneDX');
    expect(sbom.specVersion).toBe('1.5');
    expect(sbom.metadata.component).toMatchObject({ name: PKG.name, version: PKG.version, purl: `pkg:npm/%40rsi-cli/rsi@${PKG.version}` });
    expect(sbom.metadata.timestamp).toBeUndefined();
    expect(sbom.serialNumber).toBeUndefined();
  });

  it('lists exactly the parts the notice file has: every bundled package, jq and Oniguruma', () => {
    const notices = readFileSync(join(ROOT, 'dist', NOTICES), 'utf8');
    // The notice file's list: `- name version (licence)` lines before the first section.
    const listed = [...notices.split(/^={78}$/m)[0]!.matchAll(/^- (.+) (\S+) \((.+)\)$/gm)].map((m) => `${m[1]} ${m[2]}`).sort();
    const inSbom = sbom.components.map((c) => `${c.group ? `${c.group}/` : ''}${c.name} ${c.version}`).sort();
    expect(inSbom).toEqual(listed);
    expect(inSbom.length).toBeGreaterThan(30);
    // Every component by package URL (what scanners match on) and declared licence.
    for (const c of sbom.components) {
      expect(c.purl, c.name).toMatch(/^pkg:(npm|github)\//);
      expect(c.licenses.length, c.name).toBe(1);
    }
    expect(sbom.components.find((c) => c.name === 'zod')?.purl).toMatch(/^pkg:npm\/zod@\d+\.\d+\.\d+$/);
    const jq = sbom.components.find((c) => c.name.startsWith('jq '));
    expect(jq).toMatchObject({ version: '1.8.2', cpe: 'cpe:2.3:a:jqlang:jq:1.8.2:*:*:*:*:*:*:*' });
    expect(sbom.components.find((c) => c.name.startsWith('Oniguruma'))?.cpe).toMatch(/^cpe:2\.3:a:oniguruma_project:oniguruma:6\.9\.10:/);
    // The package depends on each of them.
    expect(sbom.dependencies).toEqual([{ ref: sbom.metadata.component.purl, dependsOn: sbom.components.map((c) => c.purl) }]);
  });

  it('is the same text from the same list, and a part without a package URL stops the build', () => {
    const notices = jqWasmNotices();
    expect(renderSbom(sbomSubject(ROOT), notices)).toBe(renderSbom(sbomSubject(ROOT), notices));
    expect(() => renderSbom(sbomSubject(ROOT), [{ name: 'x', version: '1', license: 'MIT', texts: ['t'] } as never])).toThrow(
      /x 1 has no package URL/,
    );
  });
});

describe('npm run audit:bundled', () => {
  let server: StubServer;
  let registry: string;
  let requests: { url: string; body: Record<string, string[]> }[] = [];
  let reply: (body: Record<string, string[]>) => { status: number; json?: unknown } = () => ({ status: 200, json: {} });
  beforeAll(async () => {
    server = await startStub((req, res, text) => {
      const body = JSON.parse(text || '{}') as Record<string, string[]>;
      requests.push({ url: `${req.method} ${req.url}`, body });
      const r = reply(body);
      res.writeHead(r.status, { 'content-type': 'application/json' }).end(r.json === undefined ? '' : JSON.stringify(r.json));
    });
    registry = `${server.url}/`;
  });
  afterAll(() => server?.close());

  async function run(required = false) {
    let out = '';
    let err = '';
    const code = await audit({ sbomFile, registry, require: required, write: (s) => (out += s), warn: (s) => (err += s) });
    return { code, out, err };
  }

  const zod = sbom.components.find((c) => c.name === 'zod')!;

  it("asks npm's bulk advisory endpoint about every bundled npm package, once, and names the rest", async () => {
    requests = [];
    reply = () => ({ status: 200, json: {} });
    const r = await run();
    expect(r.code).toBe(0);
    expect(requests).toHaveLength(1);
    expect(requests[0]!.url).toBe('POST /-/npm/v1/security/advisories/bulk');
    expect(requests[0]!.body).toEqual(auditRequest(sbom).body);
    expect(requests[0]!.body.zod).toEqual([zod.version]);
    expect(r.out).toMatch(/^\d+ bundled npm packages checked against http:\/\/127\.0\.0\.1:\d+: no advisory$/m);
    expect(r.out).toContain(
      "not in npm's advisory database (their CPE is in the SBOM): jq (in jq.wasm) 1.8.2, Oniguruma (in jq.wasm) 6.9.10",
    );
  });

  it('an advisory that covers a bundled version fails, naming package, version, severity and link', async () => {
    reply = () => ({
      status: 200,
      json: {
        zod: [
          {
            id: 1,
            url: 'https://advisories.test/GHSA-test',
            title: 'Request smuggling',
            severity: 'high',
            vulnerable_versions: `<=${zod.version}`,
          },
          { id: 2, url: 'https://github.com/advisories/GHSA-old', title: 'Fixed long ago', severity: 'low', vulnerable_versions: '<1.0.0' },
        ],
      },
    });
    const r = await run();
    expect(r.code).toBe(1);
    expect(r.out).toContain(`zod@${zod.version}: high: Request smuggling (https://advisories.test/GHSA-test; vulnerable <=${zod.version})`);
    expect(r.out).not.toContain('Fixed long ago');
    expect(r.out).toMatch(/: 1 advisories$/m);
  });

  it('a registry that cannot be asked (a mirror without the endpoint) is one warning and exit 0; with --require, exit 2', async () => {
    reply = () => ({ status: 405 });
    const r = await run();
    expect(r).toMatchObject({ code: 0, out: '' });
    expect(r.err).toMatch(/^warning: \d+ bundled packages not checked: http:\/\/127\.0\.0\.1:\d+ could not be asked \(405 /);
    const strict = await run(true);
    expect(strict.code).toBe(2);
    expect(strict.err).toMatch(/^error: /);
  });
});
