// Types for src/build/schemas.mjs (plain JavaScript: `npm run build` runs it with Node).
export function writeSchemas(root: string): Promise<string[]>;
