// Types for src/build/notices.mjs (plain JavaScript: the build runs it with Node, before any compile).
import type { Metafile } from 'esbuild';

export interface Notice {
  name: string;
  version: string;
  license: string;
  texts: string[];
  /** Package URL (purl), and NVD's CPE name where the part has one: what scanners match advisories by. */
  purl: string;
  cpe?: string;
}
export interface SbomSubject {
  name: string;
  version: string;
  license: string;
  purl: string;
  description?: string;
}
export function npmPurl(name: string, version: string): string;
export function renderSbom(subject: SbomSubject, notices: readonly Notice[]): string;
export function bundledPackages(metafile: Pick<Metafile, 'inputs'>, root: string): Notice[];
export function packageNotice(folder: string, root: string, options?: { extraFiles?: string[] }): Notice;
export function knownNotice(name: string, version: string, license: string, file: string, identity: { purl: string; cpe?: string }): Notice;
export function jqWasmNotices(): Notice[];
export function nodeNotice(nodePackageFolder: string, version: string): Notice;
export function renderNotices(title: string, notices: readonly Notice[]): string;
export function sbomSubject(root: string, file?: string): SbomSubject;
