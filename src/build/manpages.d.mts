// Types for src/build/manpages.mjs (plain JavaScript: `npm run build` runs it with Node).
export function writeManPages(root: string): Promise<string[]>;
export function buildTimeContext(createContext: (options: unknown) => unknown, version: string): unknown;
