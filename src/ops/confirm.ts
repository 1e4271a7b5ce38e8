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
 * (`confirmThenSend` below), form elicitation or the chat opt-in for `rsi mcp serve`
 * (src/mcp/gate.ts). Each write (src/ops/analyses.ts, src/ops/from-brief.ts) is one such pair.
 *
 * Both drive the same steps (`confirmSteps`): at a terminal the command line is the person's request,
 * so the CLI starts at the service's question; an assistant's request is not, so `rsi mcp serve`
 * first asks the person about the request itself, exactly as it will be sent, before anything is
 * sent (whatever its arguments: the service asks only about some), and after every yes reads again
 * what would run and asks again when it changed.
 */

import { UnexpectedReplyError } from '../errors.js';
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
 * e.g. when nobody can answer; then nothing was done). The command line was the request, so the
 * steps start at the service's question, and a yes is sent at once.
 */
export async function confirmThenSend<Q, R>(
  write: ConfirmableWrite<Q, R>,
  ask: (question: Q) => Promise<boolean>,
  signal?: AbortSignal,
): Promise<ConfirmOutcome<Q, R>> {
  const outcome = await confirmSteps(
    asStaged(write),
    async (step) => ((step.stage === 'service' ? await ask(step.question) : true) ? 'yes' : 'no'),
    { signal, recheck: false },
  );
  if (outcome.outcome === 'done') return { outcome: 'done', result: outcome.result, confirmed: outcome.asked.includes('service') };
  if (outcome.outcome === 'declined' && outcome.step.stage === 'service') return { outcome: 'declined', question: outcome.step.question };
  throw new Error('confirmThenSend: a terminal answers at once'); // unreachable: `ask` says yes or no, never later
}

/** The request as the CLI's command line gave it: nothing to read, and it is the person's own. */
function asStaged<Q, R>(write: ConfirmableWrite<Q, R>): StagedWrite<null, Q, R> {
  return {
    plan: async () => ({ asks: true, question: null }),
    send: (_plan, signal) => write.first(signal),
    confirmed: (_plan, question, signal) => write.confirmed(question, signal),
    planKey: () => '',
    questionKey: () => '',
  };
}

/**
 * A write in the steps a person confirms. `P` is the request as it will be sent (read, never
 * written: names looked up, a dry run), `Q` the service's own question, `R` the result.
 */
export interface StagedWrite<P, Q, R> {
  /**
   * Reads what would be sent, sending nothing that changes anything: the request a person approves
   * before anything is sent; or, when there is nothing to send (a brief that matched nothing), the
   * result.
   */
  plan(signal?: AbortSignal): Promise<FirstAnswer<P, R>>;
  /** Sends it, after a yes to `plan`: the result, or the service's own question (nothing done yet). */
  send(plan: P, signal?: AbortSignal): Promise<FirstAnswer<Q, R>>;
  /** Sends it confirmed, after a yes to `question` (ConfirmableWrite.confirmed's checks). */
  confirmed(plan: P, question: Q, signal?: AbortSignal): Promise<R>;
  /** What a request names (project, signals, body), to tell whether it changed since the person saw it. */
  planKey(plan: P): string;
  /** What the service's question names (its signals, its scope items). */
  questionKey(question: Q): string;
}

/** One question for a person: about the request (`request`) or the service's own (`service`). */
export type Step<P, Q> =
  | { stage: 'request'; plan: P; key: string; changed: boolean }
  | { stage: 'service'; plan: P; question: Q; key: string; changed: boolean };

/** A person's answer; `later` when they are asked elsewhere (in the chat) and answer by a later call. */
export type StepAnswer = 'yes' | 'no' | 'cancel' | 'later';

/** What the person already said yes to (a later call in the chat): the keys of the questions. */
export interface Agreed {
  request?: string | undefined;
  service?: string | undefined;
}

export type StepsOutcome<P, Q, R> =
  /** Done; `asked`: the stages a person said yes to on the way. */
  | { outcome: 'done'; result: R; asked: Array<'request' | 'service'> }
  /** The person said no (or cancelled) to `step`: nothing more was sent. */
  | { outcome: 'declined'; step: Step<P, Q>; answer: 'no' | 'cancel' }
  /** The question goes to the person another way; `agreed` is what they said yes to so far. */
  | { outcome: 'later'; step: Step<P, Q>; agreed: Agreed };

/** How often a question may change under a person's yes before rsi gives up (nothing sent). */
export const MAX_ASKS = 3;

/**
 * The steps: ask about the request (what will be sent), read it again after the yes and ask again
 * when it changed; send it; when the service asks, ask its question, send it again unconfirmed
 * after the yes (the service then only asks: it reads what would run) and ask again when its
 * question changed, then send it confirmed. `agreed` resumes after a yes given in a later call.
 * With `recheck: false` a yes to the service's question is sent at once (the CLI's terminal, where
 * the answer follows the question).
 */
export async function confirmSteps<P, Q, R>(
  write: StagedWrite<P, Q, R>,
  ask: (step: Step<P, Q>) => Promise<StepAnswer>,
  options: { signal?: AbortSignal | undefined; agreed?: Agreed; recheck?: boolean } = {},
): Promise<StepsOutcome<P, Q, R>> {
  const { signal } = options;
  const agreed: Agreed = { ...options.agreed };
  const asked: Array<'request' | 'service'> = [];
  const kept = (n: number): void => {
    if (n >= MAX_ASKS) {
      throw new UnexpectedReplyError(`what this request would do changed ${n} times while the person was asked; nothing more was sent`, {
        hint: 'ask again once the project stops changing',
      });
    }
  };
  let plan: P;
  for (let n = 0; ; n++) {
    const read = await write.plan(signal);
    if (!read.asks) return { outcome: 'done', result: read.result, asked };
    plan = read.question;
    const key = write.planKey(plan);
    if (agreed.request === key) break;
    kept(n);
    const step: Step<P, Q> = { stage: 'request', plan, key, changed: agreed.request !== undefined };
    const answer = await ask(step);
    if (answer === 'later') return { outcome: 'later', step, agreed };
    if (answer !== 'yes') return { outcome: 'declined', step, answer };
    agreed.request = key;
    asked.push('request');
  }
  for (let n = 0; ; n++) {
    const sent = await write.send(plan, signal);
    if (!sent.asks) return { outcome: 'done', result: sent.result, asked };
    const key = write.questionKey(sent.question);
    if (agreed.service === key) return { outcome: 'done', result: await write.confirmed(plan, sent.question, signal), asked };
    kept(n);
    const step: Step<P, Q> = { stage: 'service', plan, question: sent.question, key, changed: agreed.service !== undefined };
    const answer = await ask(step);
    if (answer === 'later') return { outcome: 'later', step, agreed };
    if (answer !== 'yes') return { outcome: 'declined', step, answer };
    agreed.service = key;
    asked.push('service');
    if (options.recheck === false) return { outcome: 'done', result: await write.confirmed(plan, sent.question, signal), asked };
  }
}

/**
 * The `rsi` command a person can run to confirm a write at a terminal instead (where rsi asks
 * them): one line built from words by the one quoting function (an option name, which needs no
 * quoting, as it is).
 */
export const commandLine = (words: readonly string[]): string => shellCommand(words);
