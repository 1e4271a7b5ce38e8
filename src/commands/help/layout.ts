/**
 * How help screens are laid out so each fits a terminal (docs/commands.md, "Help screens"): the
 * global options are listed once, by `rsi help environment`, and every other screen has one line
 * pointing there; the top level lists command names only (each command's usage is on its own
 * screen, the one place it is spelled), a group lists its commands with their usage.
 */
import { type Command, Help, type Option } from 'commander';
import { wrapProse } from '../../io/help-text.js';
import { ALSO_READ, ENVIRONMENT } from './environment.js';
import { GLOBALS_POINTER } from './root-help.js';

/** The options commander lists for `cmd`: the root keeps only -V and -h (the rest: help environment). */
export function visibleOptions(cmd: Command, helper: Help): Option[] {
  const options = Help.prototype.visibleOptions.call(helper, cmd);
  return cmd.parent ? options : options.filter((o) => o.long === '--version' || o.long === '--help');
}

/** A command in a list: the top level names it, a group gives its usage as its own screen does. */
export function subcommandTerm(sub: Command): string {
  // `list|ls`, as the command's own screen spells its usage.
  const name = [sub.name(), ...sub.aliases()].join('|');
  if (!sub.parent?.parent) return name;
  return `${name} ${sub.usage()}`.trimEnd();
}

/** commander's screen with the pointer to the global options after the Options block. */
export function withGlobalsPointer(text: string, width: number): string {
  const pointer = wrapProse(GLOBALS_POINTER, width).join('\n');
  const start = text.indexOf('\nOptions:\n');
  if (start < 0) return `${text}\n${pointer}\n`;
  const end = text.indexOf('\n\n', start + 1);
  if (end < 0) return `${text.trimEnd()}\n\n${pointer}\n`;
  return `${text.slice(0, end)}\n\n${pointer}${text.slice(end)}`;
}

/** `rsi help environment`: the global options and the environment, in commander's item layout. */
export function environmentHelp(program: Command): string {
  const helper = program.createHelp();
  helper.prepareContext({ helpWidth: program.configureOutput().getOutHelpWidth?.() ?? 80 });
  const width = helper.helpWidth ?? 80;
  const options = Help.prototype.visibleOptions.call(helper, program).filter((o) => o.long !== '--help');
  const rows: [string, string][] = options.map((o) => [helper.optionTerm(o), helper.optionDescription(o)]);
  const termWidth = Math.max(...rows.map(([t]) => t.length), ...ENVIRONMENT.map(([t]) => t.length), ...ALSO_READ.map(([t]) => t.length));
  const item = ([term, description]: readonly [string, string]) => helper.formatItem(term, termWidth, description, helper);
  return [
    'Usage: rsi [global options] <command> …',
    '',
    'Every command takes these options, before or after its name (rsi --json projects list = rsi projects list --json).',
    '',
    'Global options:',
    ...rows.map(item),
    '',
    'Environment:',
    ...ENVIRONMENT.map(item),
    '',
    'Also read, from the system and other tools:',
    ...ALSO_READ.map(item),
    '',
    'Examples:',
    '  rsi --profile work projects list',
    '  RSI_PROFILE=work rsi projects list --json',
    '  NO_COLOR=1 rsi status "My first project"',
    '',
  ]
    .flatMap((l) => (l.startsWith('  ') || l === '' ? [l] : wrapProse(l, width)))
    .join('\n');
}
