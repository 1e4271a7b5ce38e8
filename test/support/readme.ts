/** The README's "A first session", as both test/journeys/readme.test.ts and test/journeys/exe.test.ts run it. */
import { readFileSync } from 'node:fs';

export const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The indented code of the "A first session" section, as a reader would paste it. */
export function firstSession(markdown: string = README): string[] {
  const start = markdown.indexOf('## A first session');
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  const lines: string[] = [];
  let inBlock = false;
  for (const line of section.split('\n')) {
    if (line.startsWith('    ')) {
      if (!inBlock && lines.length) break; // only the first code block
      inBlock = true;
      lines.push(line.slice(4));
    } else if (inBlock && line.trim() === '') break;
  }
  return lines;
}
