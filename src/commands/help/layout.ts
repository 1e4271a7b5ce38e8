/**
 * How help screens are laid out so each fits a terminal (docs/commands.md, "Help screens"): the
 * global options are listed once, by `rsi help environment`, and every other screen has one line
 * pointing there; the top level lists command names only (each command's usage is on its own
 * screen, the one place it is spelled), a group lists its commands with their usage.
 */
import { type Command, Help, type Option } from 'commander';
import { wrapProse } from '../../io/help-text.js';

/** The line every screen has in place of the global options. */
export const GLOBALS_POINTER = 'Global options (--json, --jq, --fields, --profile, …): rsi help environment';

/** Environment variables that change rsi, for `rsi help environment`. */
export const ENVIRONMENT: readonly (readonly [string, string])[] = [
  ['RSI_PROFILE', 'the profile (as --profile)'],
  ['RSI_BASE_URL', 'the service base address (as --base-url)'],
  ['RSI_PROJECT', 'the default project of commands that take one (as `rsi config set project`)'],
  ['RSI_TOKEN', 'an access token used as is (CI): no keychain, no refresh'],
  ['RSI_MCP_TOKEN', "the same for the service's MCP server"],
  ['RSI_CONFIG_DIR', 'the config folder'],
  ['RSI_CREDENTIAL_STORE', 'keychain (default) or file'],
  ['RSI_DEBUG', '1: as --debug'],
  ['RSI_HTTP_TIMEOUT', 'as --http-timeout'],
  ['RSI_TIME', 'as --time'],
  ['RSI_PAGER, PAGER', 'the pager for long tables (cat: none)'],
  ['RSI_NO_PROMPT', '1: never ask, even at a terminal'],
  ['NO_COLOR', 'non-empty: no colour'],
  ['FORCE_COLOR', 'colour even in a pipe (0: never)'],
  ['CLICOLOR, CLICOLOR_FORCE', 'CLICOLOR=0: no colour; CLICOLOR_FORCE=1: colour even in a pipe'],
  ['HTTPS_PROXY, NO_PROXY', 'the proxy for the service, and where not to use it'],
  ['BROWSER', 'the command that opens web pages'],
];

/** The options commander lists for `cmd`: the root keeps only -V and -h (the rest: help environment). */
export function visibleOptions(cmd: Command, helper: Help): Option[] {
  const options = Help.prototype.visibleOptions.call(helper, cmd);
  return cmd.parent ? options : options.filter((o) => o.long === '--version' || o.long === '--help');
}

/** A command in a list: the top level names it, a group gives its usage as its own screen does. */
export function subcommandTerm(sub: Command): string {
  if (!sub.parent?.parent) return sub.name();
  return `${sub.name()} ${sub.usage()}`.trimEnd();
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
  const termWidth = Math.max(...rows.map(([t]) => t.length), ...ENVIRONMENT.map(([t]) => t.length));
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
    'Examples:',
    '  rsi --profile work projects list',
    '  RSI_PROFILE=work rsi projects list --json',
    '  NO_COLOR=1 rsi status "My first project"',
    '',
  ]
    .flatMap((l) => (l.startsWith('  ') || l === '' ? [l] : wrapProse(l, width)))
    .join('\n');
}
