/**
 * Work that must not be cut short by Ctrl-C: once the authorization server has rotated a refresh
 * token, the old one is dead, so leaving before the new one is saved signs the user out. The first
 * Ctrl-C only aborts the command's signal (a refresh does not listen to it); a second one normally
 * leaves at once (`main.ts`), but while a shielded section runs it waits for the section to finish
 * and says so. A third leaves at once, telling the user exactly what may have been lost.
 */

let running = 0;
let pendingExit: (() => void) | undefined;
let deferred = false;
/** What the running section does, for the line a second Ctrl-C gets. */
let doing = 'saving your refreshed sign-in';

/**
 * Runs `fn` so that an exit asked for meanwhile happens only after it settles. `what` says what it
 * does (a refresh's save, by default; a write's bounded read-back, src/ops/writes.ts).
 */
export async function shielded<T>(fn: () => Promise<T>, what = 'saving your refreshed sign-in'): Promise<T> {
  running++;
  doing = what;
  try {
    return await fn();
  } finally {
    running--;
    if (running === 0) {
      // The shield is down again: the next Ctrl-C is a first one, and nothing is left for tests to reset.
      deferred = false;
      const exit = pendingExit;
      pendingExit = undefined;
      exit?.();
    }
  }
}

/**
 * Asks to leave the process now. Outside a shielded section `exit` runs at once; inside one, the
 * first request is deferred until the section ends (with a note on `say`), a second one exits at
 * once with a warning of what that costs.
 */
export function exitOutsideShield(exit: () => void, say: (line: string) => void): void {
  if (running === 0) {
    exit();
    return;
  }
  if (!deferred) {
    deferred = true;
    pendingExit = exit;
    say(`${doing} before exiting (press Ctrl-C again to leave at once)`);
    return;
  }
  say('rsi: warning: left while refreshed tokens were being saved; if the next command says you are not signed in, run `rsi login`');
  exit();
}
