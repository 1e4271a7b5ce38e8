/**
 * What rsi is published as, from the one place that says it: package.json (`name`, `version`,
 * `repository`, `bugs`). The install lines, the update check and its notice, the man pages and
 * `rsi doctor` read it here; README.md and docs/ are checked against it by test/unit/release.test.ts.
 * Who owns the name and how a release is made: docs/release.md.
 */
import pkg from '../package.json' with { type: 'json' };

/** The npm package, scoped: the `@rsi-cli` organisation is the project's, so nobody else can publish under it. */
export const PACKAGE_NAME: string = pkg.name;
export const VERSION: string = pkg.version;

/** The repository's web address (package.json `repository.url` without `git+` and `.git`). */
export const REPOSITORY_URL: string = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');

/** Where the single executables of each release are attached (docs/release.md). */
export const RELEASES_URL = `${REPOSITORY_URL}/releases`;

/** Where bugs are reported. */
export const BUGS_URL: string = pkg.bugs.url;

/** The line that installs rsi with npm, globally. */
export const INSTALL_COMMAND = `npm install -g ${PACKAGE_NAME}`;

/** The oldest Node rsi runs on, as [major, minor, patch]: the lowest version package.json `engines` allows. */
export const MIN_NODE: readonly [number, number, number] = minimumOf(pkg.engines.node);

/** package.json `engines.node` as written. */
export const NODE_ENGINES: string = pkg.engines.node;

/** `^22.13.0 || >=24` → [22, 13, 0]: the smallest version a range of `^x.y.z` and `>=x[.y[.z]]` allows. */
export function minimumOf(range: string): [number, number, number] {
  const versions = [...range.matchAll(/(?:\^|>=)\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?/g)].map(
    (m) => [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)] as [number, number, number],
  );
  if (!versions.length) throw new Error(`package.json engines.node "${range}" names no lowest version`);
  return versions.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2])[0]!;
}

/** Whether Node `version` (`22.13.0`) is in package.json `engines.node` (`^x.y.z` and `>=x[.y[.z]]` ranges joined by `||`). */
export function nodeSupported(version: string, range: string = NODE_ENGINES): boolean {
  const v = version.replace(/^v/, '').split('.').map(Number);
  const atLeast = (min: number[]) => {
    for (let i = 0; i < 3; i++) if ((v[i] ?? 0) !== (min[i] ?? 0)) return (v[i] ?? 0) > (min[i] ?? 0);
    return true;
  };
  return range.split('||').some((part) => {
    const m = /^\s*(\^|>=)\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(part);
    if (!m) return false;
    const min = [Number(m[2]), Number(m[3] ?? 0), Number(m[4] ?? 0)];
    return atLeast(min) && (m[1] === '>=' || v[0] === min[0]);
  });
}
