#!/usr/bin/env node
/**
 * `npm run audit:bundled [-- --sbom FILE] [--registry URL] [--require]`: the packages bundled into
 * rsi, read from its SBOM (dist/sbom.cdx.json, made by the build from the same list as the licence
 * notices), checked against the npm registry's advisory database, the one `npm audit` asks
 * (`POST <registry>/-/npm/v1/security/advisories/bulk`). `npm audit` cannot do this itself: it sees
 * what npm installed (rsi and its two runtime dependencies), never what is inside the bundle.
 *
 * Exit 1 when an advisory covers a bundled version (SECURITY.md: that means a patch release), and
 * prints each; exit 0 when none does. A registry that cannot be asked (offline, a mirror without
 * the audit endpoint) is a warning and exit 0, unless `--require` (the release workflow's) makes it
 * exit 2. The parts that are not npm packages (jq and Oniguruma inside jq.wasm; Node in a single
 * executable) are named as not covered by this database: their CPE in the SBOM is for scanners
 * that read NVD.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

const ROOT = join(fileURLToPath(import.meta.url), '..', '..', '..');

/** `pkg:npm/%40scope/name@1.2.3` → ['@scope/name', '1.2.3']; undefined for another type. */
export function npmPackageOf(purl) {
  const m = /^pkg:npm\/(.+)@([^@?#]+)$/.exec(purl);
  return m ? [decodeURIComponent(m[1]), decodeURIComponent(m[2])] : undefined;
}

/** The SBOM's npm components as the bulk endpoint's body (`{ name: [versions] }`), and the others. */
export function auditRequest(sbom) {
  const body = {};
  const others = [];
  for (const c of sbom.components ?? []) {
    const pkg = c.purl ? npmPackageOf(c.purl) : undefined;
    if (!pkg) {
      others.push(`${c.name} ${c.version}`);
      continue;
    }
    const [name, version] = pkg;
    (body[name] ??= []).includes(version) || body[name].push(version);
  }
  return { body, others };
}

/** The advisories of the reply that cover a version asked about: `[{ name, version, advisory }]`. */
export function findings(body, reply) {
  const out = [];
  for (const [name, advisories] of Object.entries(reply ?? {})) {
    for (const advisory of Array.isArray(advisories) ? advisories : []) {
      for (const version of body[name] ?? []) {
        const range = advisory.vulnerable_versions ?? '*';
        if (semver.satisfies(version, range, { includePrerelease: true })) out.push({ name, version, advisory });
      }
    }
  }
  return out;
}

/** The registry npm would use here (`npm config get registry`), with a trailing slash. */
function npmRegistry() {
  const url = execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).trim() || 'https://registry.npmjs.org/';
  return url.endsWith('/') ? url : `${url}/`;
}

export async function audit({
  sbomFile,
  registry,
  require: required = false,
  write = (s) => process.stdout.write(s),
  warn = (s) => process.stderr.write(s),
  timeoutMs = 30_000,
}) {
  const sbom = JSON.parse(readFileSync(sbomFile, 'utf8'));
  const { body, others } = auditRequest(sbom);
  const count = Object.values(body).reduce((n, v) => n + v.length, 0);
  const url = new URL('-/npm/v1/security/advisories/bulk', registry.endsWith('/') ? registry : `${registry}/`);
  let reply;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) throw new Error(`${res.status} ${res.statusText || 'error'}`.trim());
    reply = await res.json();
  } catch (error) {
    const why = error?.cause?.code ?? error?.message ?? String(error);
    warn(`${required ? 'error' : 'warning'}: ${count} bundled packages not checked: ${url.origin} could not be asked (${why})\n`);
    return required ? 2 : 0;
  }
  const found = findings(body, reply);
  for (const { name, version, advisory } of found) {
    write(
      `${name}@${version}: ${advisory.severity ?? 'unknown'}: ${advisory.title ?? 'advisory'} (${advisory.url ?? advisory.id}; vulnerable ${advisory.vulnerable_versions})\n`,
    );
  }
  write(`${count} bundled npm packages checked against ${url.origin}: ${found.length ? `${found.length} advisories` : 'no advisory'}\n`);
  if (others.length) write(`not in npm's advisory database (their CPE is in the SBOM): ${others.join(', ')}\n`);
  return found.length ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  let sbomFile = join(ROOT, 'dist', 'sbom.cdx.json');
  let registry;
  let required = false;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--sbom') sbomFile = args[++i];
    else if (args[i] === '--registry') registry = args[++i];
    else if (args[i] === '--require') required = true;
    else {
      process.stderr.write(`audit: unknown argument ${args[i]} (--sbom FILE, --registry URL, --require)\n`);
      process.exit(2);
    }
  }
  process.exitCode = await audit({ sbomFile, registry: registry ?? npmRegistry(), require: required });
}
