// Types for src/build/release-notes.mjs (plain JavaScript, run by Node in the release workflow).
export function releaseNotes(tag: string, changelog: string, pkg: { name: string; version: string; repository: { url: string } }): string;
