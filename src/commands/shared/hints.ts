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
import { commandWords, shellCommand } from '../../io/text.js';

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
    // Edited as words: a project name with spaces or quotes stays one word, and what is added is quoted.
    const parsed = commandWords(command);
    if (!parsed) return whole;
    const words = parsed.map((w) => w.raw);
    const url = parsed.findIndex((w, i) => w.word === '<url>' && parsed[i - 1]?.word === '--base-url');
    if (where.baseUrl && url >= 0) words[url] = shellCommand([where.baseUrl]);
    const add = missingGlobals(
      parsed.map((w) => w.word),
      where,
    );
    if (add.length) words.splice(globalsAt(parsed.map((w) => w.word)), 0, shellCommand(add));
    return `\`${words.join(' ')}\``;
  });
}

/** The --profile and --base-url a command (its words) needs added to act where this run did. */
function missingGlobals(words: readonly string[], where: InForce): string[] {
  const has = (flag: string) => words.some((w) => w === flag || w.startsWith(`${flag}=`));
  const add: string[] = [];
  if (where.profileFlag && !has('--profile')) add.push('--profile', where.profile);
  if (where.baseUrlFlag && where.baseUrl && !has('--base-url')) add.push('--base-url', where.baseUrl);
  return add;
}

/**
 * Where the flags go: after the group and its subcommand (`rsi auth status --profile x`), else after
 * the command; right after `rsi` when global flags already stand there (`rsi --profile x status`),
 * never between a flag and its value.
 */
const globalsAt = (words: readonly string[]): number =>
  words[1]?.startsWith('-') ? 1 : GROUPS.has(words[1] ?? '') && /^[a-z]/.test(words[2] ?? '') ? 3 : Math.min(2, words.length);

/** A command given as words (unquoted), with the --profile and --base-url added as carryGlobals adds them. */
export function carryCommand(words: readonly string[], where: InForce): string[] {
  if (words[0] !== 'rsi' || LOCAL.test(words.join(' '))) return [...words];
  const add = missingGlobals(words, where);
  const at = globalsAt(words);
  return [...words.slice(0, at), ...add, ...words.slice(at)];
}

/**
 * For `rsi mcp serve`: the assistant started it, with flags and an environment the person's
 * terminal does not have (the configuration's `args` and `env`), so a command the person is told
 * to run carries the profile and base URL that came from either; the `profile` setting is the
 * config folder's, which the terminal shares.
 */
export function inForceBeyondShell(ctx: Context): InForce | undefined {
  try {
    const { profile, profileSource, baseUrl, baseUrlSource } = ctx.globals();
    return {
      profile,
      profileFlag: profileSource === 'flag' || profileSource === 'env',
      baseUrl,
      baseUrlFlag: baseUrlSource !== undefined,
    };
  } catch {
    return undefined;
  }
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
