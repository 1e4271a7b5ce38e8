/**
 * A hint is a command to copy. Whatever command printed it, it must act on the same profile and
 * service the failed run used: `rsi --profile ttl projects list` refused must say
 * `rsi login --profile ttl`, not `rsi login` (which signs in the default profile). Every `rsi …`
 * in backticks in a hint gets the --profile and --base-url the run was given as flags, unless it
 * already names them (what came from RSI_PROFILE, RSI_BASE_URL or the settings still holds when the
 * hint is run); a `--base-url <url>` placeholder gets the URL in force when it is known.
 */
import { CliError } from '../../errors.js';
import type { Context } from '../../context.js';
import { shellQuote } from './habits.js';

/** Commands that use neither a profile's sign-in nor a service. */
const LOCAL = /^rsi (?:config|sandbox|completion|help|-V|--version)\b/;
/** Commands with subcommands: the flags go after both words (`rsi auth status --profile x`). */
const GROUPS = new Set(['auth', 'keywords', 'projects', 'analyses', 'mcp']);

export interface InForce {
  /** The profile in force, and whether only the command line said so (--profile). */
  profile: string;
  profileFlag: boolean;
  /** The base URL in force, and whether only the command line said so (--base-url). */
  baseUrl: string | undefined;
  baseUrlFlag: boolean;
}

export function carryGlobals(hint: string, where: InForce): string {
  return hint.replace(/`(rsi(?: [^`]*)?)`/g, (whole, command: string) => {
    if (LOCAL.test(command)) return whole;
    let line = command;
    if (where.baseUrl) line = line.replace(/ --base-url <url>/, ` --base-url ${shellQuote(where.baseUrl)}`);
    const add: string[] = [];
    if (where.profileFlag && !/ --profile[ =]/.test(line)) add.push('--profile', shellQuote(where.profile));
    if (where.baseUrlFlag && where.baseUrl && !/ --base-url[ =]/.test(line)) add.push('--base-url', shellQuote(where.baseUrl));
    if (!add.length) return `\`${line}\``;
    const words = line.split(' ');
    const at = GROUPS.has(words[1] ?? '') && /^[a-z]/.test(words[2] ?? '') ? 3 : Math.min(2, words.length);
    return `\`${[...words.slice(0, at), ...add, ...words.slice(at)].join(' ')}\``;
  });
}

/** The profile and base URL of this run, and whether its flags said so (the Context knows); undefined when they are invalid. */
export function inForce(ctx: Context): InForce | undefined {
  try {
    const { profile, profileSource, baseUrl, baseUrlSource } = ctx.globals();
    return { profile, profileFlag: profileSource === 'flag', baseUrl, baseUrlFlag: baseUrlSource === 'flag' };
  } catch {
    return undefined;
  }
}

/** A hint written as it is found (not an error's): the same flags carried. */
export function hintLine(ctx: Context, hint: string): string {
  const where = inForce(ctx);
  return `hint: ${where ? carryGlobals(hint, where) : hint}\n`;
}

/** The error with its hint carrying the profile and base URL in force (same class, same exit code). */
export function withGlobals(error: unknown, ctx: Context): unknown {
  if (!(error instanceof CliError) || !error.hint) return error;
  const where = inForce(ctx);
  if (!where) return error;
  const hint = carryGlobals(error.hint, where);
  if (hint !== error.hint) Object.defineProperty(error, 'hint', { value: hint });
  return error;
}
