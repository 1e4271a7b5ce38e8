// Types for src/build/completions.mjs (plain JavaScript: `npm run build` runs it with Node).
export const SHELLS: readonly string[];
export function completionScripts(root: string): Promise<Record<string, string>>;
