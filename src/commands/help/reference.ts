/**
 * The whole command reference, from the commander tree itself (so it cannot drift from `--help`),
 * in two forms as gh has them: `rsi help reference` (every command's help, one after another) and
 * manual pages (`rsi.1`, one `rsi-<command>.1` per command), which src/build/manpages.mjs writes
 * into dist/man/ at build time.
 */
import type { Command, Help } from 'commander';
import { BUGS_URL, INSTALL_COMMAND, PACKAGE_NAME, RELEASES_URL } from '../../release.js';
import { environmentHelp } from './layout.js';

/**
 * Every command of the tree in help order, root first; hidden ones (`__complete`) and the implicit
 * `help` commander adds to groups (not a command of rsi's tree) left out.
 */
export function commandsOf(root: Command): Command[] {
  const out: Command[] = [];
  const walk = (cmd: Command): void => {
    out.push(cmd);
    for (const sub of cmd.createHelp().visibleCommands(cmd)) if (cmd.commands.includes(sub)) walk(sub);
  };
  walk(root);
  return out;
}

/** `rsi keywords search` */
export function pathOf(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** A helper configured as the command's own help is, without the inherited flags, at `width`. */
function helperFor(cmd: Command, width: number): Help {
  const helper = cmd.createHelp();
  helper.showGlobalOptions = false;
  helper.prepareContext({ error: false, helpWidth: width, outputHasColors: false });
  return helper;
}

/** The text the command and its ancestors add after their help (examples, fields, notes), as `--help` prints it. */
function addedHelp(cmd: Command, helpWidth?: number): string {
  let text = '';
  // `helpWidth`: the width src/program.ts re-flows the text to, when not the terminal's.
  const context = { error: false, command: cmd, helpWidth, write: (s: string) => void (text += s) };
  // The same events commander's outputHelp emits for the text added with addHelpText.
  (cmd as unknown as { emit(event: string, context: unknown): boolean }).emit('afterHelp', context);
  return text;
}

/**
 * `rsi help reference`: the root's help (with the options every command takes), then each
 * command's own help under a `## rsi …` heading, without the inherited options repeated.
 */
export function renderReference(root: Command, width: number, version: string): string {
  const parts = [
    `# rsi reference (${version})\n\nEvery command with its arguments and options. The options of \`rsi\` itself apply to every command.\nThe same reference is installed as manual pages: man rsi, man rsi-keywords-search, …\n`,
  ];
  for (const cmd of commandsOf(root)) {
    const helper = helperFor(cmd, width);
    parts.push(`## ${pathOf(cmd)}\n\n${helper.formatHelp(cmd, helper).trimEnd()}\n${addedHelp(cmd).trimEnd()}\n`);
    // The options every command takes, once, right after the root's help (`rsi help environment`).
    if (cmd === root) parts.push(`## rsi help environment\n\n${environmentHelp(root).trimEnd()}\n`);
  }
  return `${parts.join('\n').replace(/\n{3,}/g, '\n\n')}`;
}

/**
 * roff text: backslashes, dashes and a leading `.` or `'` escaped, and every character beyond ASCII
 * written as `\[uXXXX]`, which groff and mandoc read whatever the page's encoding is taken to be.
 */
function roff(text: string): string {
  return text
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/[^\x00-\x7f]/gu, (c) => `\\[u${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`)
    .split('\n')
    .map((line) => (/^[.']/.test(line) ? `\\&${line}` : line))
    .join('\n');
}

/** The file name of a command's page: `rsi-keywords-search.1`. */
export function manName(cmd: Command): string {
  return `${pathOf(cmd).replace(/ /g, '-')}.1`;
}

/** Prose and indented blocks of added help text as roff: paragraphs, `Examples:` sub-headings, literal lines. */
function roffBlocks(text: string): string[] {
  const out: string[] = [];
  let literal = false;
  for (const line of text.replace(/^\n+|\n+$/g, '').split('\n')) {
    if (line.trim() === '') {
      if (literal) out.push('.fi', '.RE');
      literal = false;
      out.push('.PP');
    } else if (/^\s/.test(line)) {
      if (!literal) out.push('.RS 4', '.nf');
      literal = true;
      out.push(roff(line.replace(/^ {2}/, '')));
    } else {
      if (literal) out.push('.fi', '.RE');
      literal = false;
      if (isHeading(line)) out.push(`.SH ${roff(line.slice(0, -1).toUpperCase())}`);
      else out.push(roff(line));
    }
  }
  if (literal) out.push('.fi', '.RE');
  return out;
}

/**
 * One manual page per command, `rsi.1` first: NAME, SYNOPSIS, DESCRIPTION, the arguments, options
 * and subcommands, the text its help adds, and SEE ALSO. No date, so a rebuild of the same sources
 * gives the same bytes.
 */
export function renderManPages(root: Command, version: string): Map<string, string> {
  const pages = new Map<string, string>();
  for (const cmd of commandsOf(root)) pages.set(manName(cmd), renderManPage(cmd, root, version));
  return pages;
}

/** The manual page of one command of the tree under `root` (`rsi help <command> --man` shows it). */
export function renderManPage(cmd: Command, root: Command, version: string): string {
  // Wide enough that commander wraps nothing: roff fills the text to the reader's terminal.
  const helper = helperFor(cmd, 10_000);
  const path = pathOf(cmd);
  const name = manName(cmd).slice(0, -2);
  const lines = [
    `.TH ${roff(name.toUpperCase())} 1 "" "${roff(PACKAGE_NAME)} ${roff(version)}" "rsi manual"`,
    '.SH NAME',
    `${roff(name)} \\- ${roff(firstLine(helper.commandDescription(cmd)))}`,
    '.SH SYNOPSIS',
    `.B ${roff(path)}`,
    roff(helper.commandUsage(cmd).slice(pathOf(cmd).length).trim()),
    '.SH DESCRIPTION',
    ...roffBlocks(helper.commandDescription(cmd)),
  ];
  const items = (title: string, entries: readonly [string, string][]) => {
    if (!entries.length) return;
    lines.push(`.SH ${title}`);
    for (const [term, description] of entries) lines.push('.TP', `.B ${roff(term)}`, roff(description || ' '));
  };
  items(
    'ARGUMENTS',
    helper.visibleArguments(cmd).map((a) => [helper.argumentTerm(a), helper.argumentDescription(a)]),
  );
  items(
    'OPTIONS',
    helper.visibleOptions(cmd).map((o) => [helper.optionTerm(o), helper.optionDescription(o)]),
  );
  items(
    'COMMANDS',
    helper.visibleCommands(cmd).map((c) => [`${pathOf(c)}`, `${helper.subcommandDescription(c)} (see ${manName(c).slice(0, -2)}(1))`]),
  );
  const added = addedHelp(cmd, 10_000).trim();
  // Text before the first heading of its own (`Examples:`) goes under NOTES.
  if (added) lines.push(...(isHeading(added.split('\n')[0]!) ? [] : ['.SH NOTES']), ...roffBlocks(added));
  if (cmd !== root) {
    lines.push(
      '.SH GLOBAL OPTIONS',
      `The options of ${roff('rsi')} itself (\\-\\-json, \\-\\-profile, \\-\\-format, \\[u2026]) apply to this command too: see rsi(1).`,
    );
  }
  const related = [cmd.parent && cmd.parent !== root ? manName(cmd.parent) : undefined, cmd !== root ? 'rsi.1' : undefined]
    .filter((n): n is string => !!n)
    .map((n) => `${roff(n.slice(0, -2))}(1)`);
  if (related.length) lines.push('.SH SEE ALSO', related.join(', '));
  // Where rsi comes from and where its bugs go, once, on rsi(1): from package.json (src/release.ts).
  if (cmd === root)
    lines.push(
      '.SH AVAILABILITY',
      roff(`${INSTALL_COMMAND}, or a single executable from ${RELEASES_URL}`),
      '.SH REPORTING BUGS',
      roff(BUGS_URL),
    );
  return `${lines.join('\n')}\n`;
}

/** A line of added help text that heads what follows: `Examples:`. */
function isHeading(line: string): boolean {
  return /^[A-Z][\w ()/,-]*:$/.test(line) && line.length < 40;
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}
