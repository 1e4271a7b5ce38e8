/**
 * Small text helpers every layer shares: the one quoting rule for commands rsi suggests, and the
 * one way of writing a duration.
 *
 * shellQuote: every value from the service or the user in a suggested command ("Next: rsi status
 * <id> --watch", hints) is quoted for a POSIX shell, so a copy-paste of a project named
 * `$(curl …|sh)` or `x; rm -rf ~` runs rsi with that name and nothing else.
 */

/** Quotes an argument for a POSIX shell (single quotes) unless it is plainly safe as it is. */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./:@%+=][A-Za-z0-9_./:@%+=-]*$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** A compact human duration: `45 s`, `1.5 s`, `2 min 5 s`. */
export function formatSeconds(ms: number): string {
  const s = ms / 1000;
  if (s < 60) return `${Number.isInteger(s) ? s : Number(s.toFixed(1))} s`;
  const m = Math.floor(s / 60);
  const rest = Math.round(s - m * 60);
  return rest === 0 ? `${m} min` : `${m} min ${rest} s`;
}
