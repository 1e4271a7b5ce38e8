/**
 * The third-party notice file of a build, made from what esbuild actually put in it (its metafile),
 * not from package.json: a dependency that is tree-shaken away needs no notice, and one that is
 * bundled through another package (signal-exit inside proper-lockfile) does. Most of these licences
 * (MIT, ISC, BSD, BlueOak) require their text to travel with the code, so a bundled package whose
 * licence text cannot be found fails the build instead of shipping without it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** A package's own licence files: LICENSE, LICENCE, COPYING, any case, any extension (LICENSE.md, license.txt). */
const LICENCE_FILE = /^(licen[cs]e|copying)([.-][\w.-]+)?$/i;

/**
 * Texts for parts that ship without a licence file of their own: src/build/licenses/, whose
 * README says where each text comes from.
 */
const KNOWN = join(import.meta.dirname, 'licenses');

/**
 * The packages whose files are in a bundle: the folder under the last `node_modules/` of each
 * metafile input (`node_modules/a/node_modules/@s/b/x.js` → `node_modules/a/node_modules/@s/b`).
 */
export function bundledPackages(metafile, root) {
  const folders = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const path = input.replaceAll('\\', '/');
    const at = path.lastIndexOf('node_modules/');
    if (at < 0) continue;
    const rest = path.slice(at + 'node_modules/'.length).split('/');
    const name = rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
    folders.add(join(root, path.slice(0, at), 'node_modules', name));
  }
  return [...folders]
    .map((folder) => packageNotice(folder, root))
    .sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
}

/**
 * One package's notice: name, version, declared licence and the text of its licence files. Throws
 * when it has none (and no known text), naming the package, so the build stops loudly.
 */
export function packageNotice(folder, root, { extraFiles = [] } = {}) {
  const pkg = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
  const files = readdirSync(folder)
    .filter((name) => LICENCE_FILE.test(name))
    .sort();
  const texts = files.map((name) => readFileSync(join(folder, name), 'utf8').trim());
  for (const file of extraFiles) texts.push(readFileSync(file, 'utf8').trim());
  if (!texts.length || texts.some((t) => !t)) {
    throw new Error(
      `${pkg.name}@${pkg.version} (${relative(root, folder)}) is bundled but has no licence text (no LICENSE, LICENCE or COPYING file): ` +
        'add its licence text to src/build/licenses/ and name it in src/build/notices.mjs, or stop bundling it',
    );
  }
  const license = typeof pkg.license === 'string' ? pkg.license : (pkg.license?.type ?? 'see text');
  return { name: pkg.name, version: pkg.version, license, texts, purl: npmPurl(pkg.name, pkg.version) };
}

/** The package URL of an npm package (`@scope/name` → `pkg:npm/%40scope/name@1.2.3`), as npm's own SBOM writes it. */
export function npmPurl(name, version) {
  return `pkg:npm/${name.replace(/^@/, '%40')}@${encodeURIComponent(version)}`;
}

/** A notice for something that is not an npm package (jq inside jq.wasm, Node inside a binary). */
export function knownNotice(name, version, license, file, identity) {
  const text = readFileSync(join(KNOWN, file), 'utf8').trim();
  return { name, version, license, texts: [text], ...identity };
}

/** The licences of jq and of Oniguruma, its regex engine, both compiled into jq-wasm's jq.wasm. */
export function jqWasmNotices() {
  return [
    // The identities scanners match advisories by: a package URL and NVD's CPE name.
    knownNotice('jq (in jq.wasm)', '1.8.2', 'MIT and others', 'jq.txt', {
      purl: 'pkg:github/jqlang/jq@jq-1.8.2',
      cpe: 'cpe:2.3:a:jqlang:jq:1.8.2:*:*:*:*:*:*:*',
    }),
    knownNotice('Oniguruma (in jq.wasm)', '6.9.10', 'BSD-2-Clause', 'oniguruma.txt', {
      purl: 'pkg:github/kkos/oniguruma@v6.9.10',
      cpe: 'cpe:2.3:a:oniguruma_project:oniguruma:6.9.10:*:*:*:*:*:*:*',
    }),
  ];
}

/** Node's own licence (LICENSE of the Node package a single executable embeds). */
export function nodeNotice(nodePackageFolder, version) {
  const file = join(nodePackageFolder, 'LICENSE');
  if (!existsSync(file)) throw new Error(`${nodePackageFolder} has no LICENSE: Node's licence must ship beside the binary`);
  return {
    name: 'Node.js',
    version,
    license: 'MIT and others',
    texts: [readFileSync(file, 'utf8').trim()],
    purl: `pkg:generic/node@${version}?download_url=https://nodejs.org/dist/v${version}/`,
    cpe: `cpe:2.3:a:nodejs:node.js:${version}:*:*:*:*:*:*:*`,
  };
}

/**
 * The SBOM beside a notice file, from the same list (CycloneDX 1.5 JSON; `npm sbom` writes the
 * same format for what npm installs, and cannot see inside a bundle): `subject` is what ships (rsi,
 * or one single executable), each notice a component with its package URL, its CPE where it has
 * one, and its declared licence. No timestamp or serial number: a rebuild of the same sources gives
 * the same bytes, as the tarball's checksum must.
 */
export function renderSbom(subject, notices) {
  const seen = new Set();
  const components = [];
  for (const n of notices) {
    if (!n.purl) throw new Error(`${n.name} ${n.version} has no package URL for the SBOM`);
    if (seen.has(n.purl)) continue;
    seen.add(n.purl);
    const scoped = /^(@[^/]+)\/(.+)$/.exec(n.name);
    components.push({
      type: 'library',
      'bom-ref': n.purl,
      ...(n.purl.startsWith('pkg:npm/') && scoped ? { group: scoped[1], name: scoped[2] } : { name: n.name }),
      version: n.version,
      licenses: licenceOf(n.license),
      purl: n.purl,
      ...(n.cpe ? { cpe: n.cpe } : {}),
    });
  }
  const bom = {
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    version: 1,
    metadata: {
      component: {
        type: 'application',
        'bom-ref': subject.purl,
        name: subject.name,
        version: subject.version,
        ...(subject.description ? { description: subject.description } : {}),
        licenses: licenceOf(subject.license),
        purl: subject.purl,
      },
    },
    components,
    dependencies: [{ ref: subject.purl, dependsOn: components.map((c) => c['bom-ref']) }],
  };
  return `${JSON.stringify(bom, null, 2)}\n`;
}

/** What ships, as an SBOM's subject: rsi's npm package, or (`file`) one single executable of this version. */
export function sbomSubject(root, file) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return {
    name: file ?? pkg.name,
    version: pkg.version,
    license: pkg.license,
    description: pkg.description,
    purl: file ? `pkg:generic/${file}@${encodeURIComponent(pkg.version)}` : npmPurl(pkg.name, pkg.version),
  };
}

/** A declared licence as CycloneDX takes it: an SPDX expression (`MIT`, `(MIT OR CC0-1.0)`), else by name. */
function licenceOf(license) {
  return /^[()\w.+-]+(?: (?:OR|AND|WITH) [()\w.+-]+)*$/.test(license) ? [{ expression: license }] : [{ license: { name: license } }];
}

/** The notice file: a heading and one section per part, each with its full licence text. */
export function renderNotices(title, notices) {
  const rule = '='.repeat(78);
  const head = [
    title,
    '',
    'rsi is MIT licensed (LICENSE). It contains the following third-party software, each under its',
    'own licence, reproduced in full below.',
    '',
    ...notices.map((n) => `- ${n.name} ${n.version} (${n.license})`),
    '',
  ];
  const sections = notices.map((n) =>
    [rule, `${n.name} ${n.version} (${n.license})`, rule, '', n.texts.join('\n\n---\n\n'), ''].join('\n'),
  );
  return `${[...head, ...sections].join('\n')}\n`;
}
