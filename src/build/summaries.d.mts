// Types for src/build/summaries.mjs (plain JavaScript: `npm run build` runs it with Node).
export function commandSummaries(root: string): Promise<{ name: string; description: string; hidden?: boolean }[]>;
