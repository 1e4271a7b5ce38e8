// Types for src/build/scratch.mjs (plain JavaScript: `npm run build` runs it with Node).
export function importFromSource(root: string, name: string, exports: Record<string, string[]>): Promise<Record<string, unknown>>;
