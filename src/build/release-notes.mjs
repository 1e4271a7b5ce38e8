#!/usr/bin/env node
/**
 * `node src/build/release-notes.mjs vX.Y.Z`: the release notes of a tag, printed from CHANGELOG.md's
 * entry for that version (the text under `## [X.Y.Z] - YYYY-MM-DD`, up to the next entry), with
 * links to the full changelog and the install line. Fails, naming what is wrong, when the tag is not
 * package.json's version or CHANGELOG.md has no dated entry for it: a version is dated when it is
 * released, and the release workflow runs this before it builds anything.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(fileURLToPath(import.meta.url), '..', '..', '..');

/** The notes of `tag` from a changelog's text; throws with the reason when there are none. */
export function releaseNotes(tag, changelog, pkg) {
  const version = tag.replace(/^v/, '');
  if (!/^v\d+\.\d+\.\d+(-[\w.]+)?$/.test(tag)) throw new Error(`${tag} is not a release tag (vX.Y.Z or vX.Y.Z-pre.N)`);
  if (version !== pkg.version) throw new Error(`the tag ${tag} is not package.json's version ${pkg.version} (npm version sets both)`);
  const escaped = version.replaceAll('.', '\\.');
  const heading = new RegExp(`^## \\[${escaped}\\](.*)$`, 'm').exec(changelog);
  if (!heading) throw new Error(`CHANGELOG.md has no entry for ${version}: move [Unreleased]'s entries under ## [${version}] - YYYY-MM-DD`);
  if (!/^ - \d{4}-\d{2}-\d{2}$/.test(heading[1]))
    throw new Error(`CHANGELOG.md's entry for ${version} has no date: ## [${version}] - YYYY-MM-DD`);
  const start = heading.index + heading[0].length;
  const next = changelog.slice(start).search(/^## |^\[[^\]]+\]: /m);
  const body = changelog.slice(start, next < 0 ? undefined : start + next).trim();
  if (!body) throw new Error(`CHANGELOG.md's entry for ${version} is empty`);
  const repository = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
  return `${body}\n\nInstall: \`npm install -g ${pkg.name}@${version}\`, or a single executable below (check it with \`sha256sum -c SHA256SUMS --ignore-missing\`). Every change: [CHANGELOG.md](${repository}/blob/${tag}/CHANGELOG.md).\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const tag = process.argv[2] ?? '';
  try {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    process.stdout.write(releaseNotes(tag, readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8'), pkg));
  } catch (error) {
    process.stderr.write(`release-notes: ${error.message}\n`);
    process.exitCode = 1;
  }
}
