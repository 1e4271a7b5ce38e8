// Types for src/build/rehearse.mjs (plain JavaScript: `npm run release:rehearse` runs it with Node).
export const VERDACCIO: string;
export function readmeInstall(markdown: string): string[];
export function updateCommand(screen: string): string | undefined;
