/**
 * The one quoting rule for commands rsi suggests ("Next: rsi status <id> --watch", hints): every
 * value from the service or the user is quoted for a POSIX shell, so a copy-paste of a project
 * named `$(curl …|sh)` or `x; rm -rf ~` runs rsi with that name and nothing else.
 */

/** Quotes an argument for a POSIX shell (single quotes) unless it is plainly safe as it is. */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./:@%+=][A-Za-z0-9_./:@%+=-]*$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}
