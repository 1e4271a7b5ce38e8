// Types for src/build/bundle.mjs (plain JavaScript: `npm run build` runs it with Node).
import type { BuildOptions, Plugin } from 'esbuild';

export const options: BuildOptions & { metafile: true };
export const bootOptions: BuildOptions;
export const workerOptions: BuildOptions & { metafile: true };
export const rootHelpOptions: BuildOptions;
export const FULL_ONLY: RegExp;
export const FULL_OUTFILE: string;
export const coreOnly: Plugin;
export const builtinImports: Plugin;
export const MINIFY: BuildOptions;
export const NOTICES: string;
export const SBOM: string;
export function notifierDefine(env?: Record<string, string | undefined>): Record<string, string>;
export function scriptText(file: string, first?: string): string;
