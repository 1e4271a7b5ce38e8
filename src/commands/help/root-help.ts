/**
 * The root's help screen (`rsi`, `rsi --help`, `rsi -h`, `rsi help`), the one home of its text and
 * layout. Every run renders it here: commander's tree does (src/program.ts, the root's formatHelp),
 * and so do bin/rsi.js and the single executable's boot script before anything else loads, as they
 * answer `--version` (src/commands/help/root-screen.ts; docs/performance.md). Light on purpose:
 * nothing but the text helpers, so the early answer loads one small file.
 *
 * The layout is commander's for every other screen (an item: two spaces, the term padded to the
 * longest term, two spaces, the description wrapped at the width; where that leaves fewer than
 * MIN_DESCRIPTION_WIDTH columns, the description goes under the term), with the pointer to the
 * global options after the options and the examples re-flowed as added help text is;
 * test/e2e/root-help.test.ts holds the screen to commander's rendering of the same tree at every
 * width from 1 to 300.
 */
import type { CommandDeclaration } from '../declaration.js';
import { MIN_DESCRIPTION_WIDTH, reflowHelp, stackedItem, wrapProse } from '../../io/help-text.js';

/** rsi itself: its description and what `rsi --help` shows under Examples. */
export const ROOT: CommandDeclaration = {
  path: '',
  description: 'Command-line client for the Research Intelligence Service',
  examples: [
    'rsi login --base-url https://research.example.com',
    'rsi projects list',
    'rsi status "My first project" --watch',
    'rsi help analyses run',
  ],
};

/** The root's two options on its screen (the global options are on `rsi help environment`'s). */
export const VERSION_OPTION = { flags: '-V, --version', description: 'print the version' } as const;
export const HELP_OPTION = { flags: '-h, --help', description: 'display help for command' } as const;

/** The line every screen has in place of the global options. */
export const GLOBALS_POINTER = 'Global options (--json, --jq, --fields, --profile, …): rsi help environment';

/** A command the root lists: its word and its description. */
export interface RootItem {
  name: string;
  description: string;
}

/** The root's screen at `width` columns, listing `commands` (the visible ones, in help order). */
export function renderRootHelp(commands: readonly RootItem[], width: number): string {
  const options: [string, string][] = [
    [VERSION_OPTION.flags, VERSION_OPTION.description],
    [HELP_OPTION.flags, HELP_OPTION.description],
  ];
  const listed: [string, string][] = commands.map((c) => [c.name, c.description]);
  const termWidth = Math.max(...[...options, ...listed].map(([term]) => term.length));
  const item = ([term, description]: [string, string]) => formatItem(term, termWidth, description, width);
  const screen = [
    'Usage: rsi [options] [command]',
    '',
    boxWrap(ROOT.description, width),
    '',
    'Options:',
    ...options.map(item),
    '',
    wrapProse(GLOBALS_POINTER, width).join('\n'),
    '',
    'Commands:',
    ...listed.map(item),
    '',
  ].join('\n');
  const examples = (ROOT.examples ?? []).map((e) => `  ${e}`).join('\n');
  return `${screen}${reflowHelp(`\nExamples:\n${examples}\n`, width)}`;
}

/** commander's item (Help.formatItem) under rsi's rule for a narrow screen (src/program.ts). */
function formatItem(term: string, termWidth: number, description: string, width: number): string {
  if (width - termWidth - 4 < MIN_DESCRIPTION_WIDTH) return stackedItem(term, description, width);
  const wrapped = boxWrap(description, width - termWidth - 4).replace(/\n/g, `\n${' '.repeat(termWidth + 2)}`);
  return `  ${term.padEnd(termWidth)}  ${wrapped.replace(/\n/g, '\n  ')}`;
}

/** commander's Help.boxWrap: whitespace-led chunks while they fit, a break trimming the chunk's spaces. */
function boxWrap(text: string, width: number): string {
  if (width < MIN_DESCRIPTION_WIDTH) return text;
  return text
    .split(/\r\n|\n/)
    .map((line) => {
      const chunks = line.match(/\s*\S+/g);
      if (chunks === null) return '';
      const lines: string[] = [];
      let current = chunks.shift()!;
      for (const chunk of chunks) {
        if (current.length + chunk.length <= width) current += chunk;
        else {
          lines.push(current);
          current = chunk.trimStart();
        }
      }
      lines.push(current);
      return lines.join('\n');
    })
    .join('\n');
}
