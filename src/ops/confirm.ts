/**
 * "Confirm, then send again", once for both front-ends, as a request/process pair in
 * oauth4webapi's shape (`refreshTokenGrantRequest` + `processRefreshTokenResponse`, the caller
 * owning the state between them):
 *
 * - `first()` sends the write unconfirmed and says what the service asks (nothing was done), or
 *   returns what it did when it asked nothing;
 * - `confirmed(question)`, called only after a person said yes to that question, sends it again
 *   confirmed and checks the answer: a service that asks again after the confirmation, or reports
 *   nothing done, has recorded nothing, and that is an error (never "done").
 *
 * How the person is asked is the front-end's: a terminal prompt or --yes for the CLI
 * (`confirmThenSend` below), form elicitation for `rsi mcp serve` (src/mcp/ask.ts). Each write
 * (src/ops/analyses.ts, src/ops/from-brief.ts) is one such pair.
 */

import { shellCommand } from '../io/text.js';

/** What the first, unconfirmed request told: a question for a person, or the result (nothing was asked). */
export type FirstAnswer<Q, R> = { asks: true; question: Q } | { asks: false; result: R };

/** A write the service may ask a person to confirm. */
export interface ConfirmableWrite<Q, R> {
  /** Sends the request without confirmation. */
  first(signal?: AbortSignal): Promise<FirstAnswer<Q, R>>;
  /**
   * Sends it confirmed, after a person agreed to `question`. Throws when the answer shows that
   * nothing was recorded (asked again, nothing created).
   */
  confirmed(question: Q, signal?: AbortSignal): Promise<R>;
}

export type ConfirmOutcome<Q, R> =
  /** Done: at once (`confirmed: false`), or after a person's yes. */
  | { outcome: 'done'; result: R; confirmed: boolean }
  /** The service asked and the person said no: nothing was done. */
  | { outcome: 'declined'; question: Q };

/**
 * Drives the pair with one way of asking: `ask` sees the question and says yes or no (it may throw,
 * e.g. when nobody can answer; then nothing was done).
 */
export async function confirmThenSend<Q, R>(
  write: ConfirmableWrite<Q, R>,
  ask: (question: Q) => Promise<boolean>,
  signal?: AbortSignal,
): Promise<ConfirmOutcome<Q, R>> {
  const first = await write.first(signal);
  if (!first.asks) return { outcome: 'done', result: first.result, confirmed: false };
  if (!(await ask(first.question))) return { outcome: 'declined', question: first.question };
  return { outcome: 'done', result: await write.confirmed(first.question, signal), confirmed: true };
}

/**
 * The `rsi` command a person can run to confirm a write at a terminal instead (where rsi asks
 * them): one line built from words by the one quoting function (an option name, which needs no
 * quoting, as it is).
 */
export const commandLine = (words: readonly string[]): string => shellCommand(words);
