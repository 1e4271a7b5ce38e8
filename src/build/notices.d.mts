// Types for src/build/notices.mjs (plain JavaScript: the build runs it with Node, before any compile).
import type { Metafile } from 'esbuild';

export interface Notice {
  name: string;
  version: string;
  license: string;
  texts: string[];
}
export function bundledPackages(metafile: Pick<Metafile, 'inputs'>, root: string): Notice[];
export function packageNotice(folder: string, root: string, options?: { extraFiles?: string[] }): Notice;
export function knownNotice(name: string, version: string, license: string, file: string): Notice;
export function jqWasmNotices(): Notice[];
export function nodeNotice(nodePackageFolder: string, version: string): Notice;
export function renderNotices(title: string, notices: readonly Notice[]): string;
