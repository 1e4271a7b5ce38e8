/**
 * The write rule of `rsi mcp serve`: a person confirms every write before it is sent, whatever its
 * arguments, or nothing is sent. The steps (the request as it will be sent, then the service's own
 * question when it asks one, each read again after the yes and asked again when it changed) are
 * ops' (src/ops/confirm.ts, `confirmSteps`), the same protocol `rsi analyses run` and
 * `rsi projects create --from-brief` drive; what is this front-end's is only how the person is
 * asked:
 *
 * - a client with form elicitation: rsi asks the person itself (ask.ts) at each step;
 * - a client with URL-mode elicitation only: rsi asks on a page of its own on loopback
 *   (confirm-page.ts), whose address the client offers the person;
 * - a client without it: the write is refused before anything is sent, with a tool error that
 *   says a person must confirm, and the `rsi` command they can run themselves; unless the person
 *   who started the server allowed confirmations in the chat (`--confirm-in-chat`), where each
 *   question goes back to the assistant and only an identical repeat with `confirmed: true`
 *   answers it (confirm.ts' QuestionBook), once.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { confirmSteps, type StagedWrite, type Step } from '../ops/confirm.js';
import { askByPage, askForm, type Extra, elicitationModes, OwnWordsError, Reply } from './ask.js';
import type { ConfirmPages } from './confirm-page.js';
import { QUESTION_TTL_MS, type QuestionBook } from './confirm.js';

/** How a write's questions and results read in this front-end. */
export interface WriteView<P, Q, R> {
  /** The question about the request itself, exactly as it will be sent (fenced when shown). */
  request(plan: P): string;
  /** The service's own question, composed by rsi from its words, with what a yes sends (fenced when shown). */
  question(question: Q, plan: P): string;
  /** The value returned with a question (nothing was done). */
  asked(step: Step<P, Q>): Record<string, unknown>;
  /** The value (and a line in rsi's words) for a result. */
  done(r: R): { value: Record<string, unknown>; note?: string | undefined };
}

export interface GatedWrite<P, Q, R> {
  write: StagedWrite<P, Q, R>;
  view: WriteView<P, Q, R>;
  /** The `rsi` command (its words, unquoted) a person can run to do the same at a terminal. */
  command: readonly string[];
}

export type Gate = <P, Q, R>(
  name: string,
  request: unknown,
  claimed: boolean | undefined,
  extra: Extra,
  gated: GatedWrite<P, Q, R>,
) => Promise<Reply>;

/**
 * Nobody here can confirm a write. The command a person can run carries the assistant's
 * arguments (a project name it may have read from the service): it is shown fenced (failure.ts).
 */
export class PersonMustConfirmError extends OwnWordsError {
  constructor(
    message: string,
    hint: string,
    readonly command: readonly string[],
  ) {
    super(message, { hint });
  }
}

/** Whether a person can confirm a write in this session: elicitation (form, or URL and rsi's page), or the chat opt-in. */
export const personCanConfirm = (server: McpServer, confirmInChat: boolean): boolean => {
  const modes = elicitationModes(server);
  return modes.form || modes.url || confirmInChat;
};

/**
 * Throws, before anything is sent, when nobody can confirm a write here: the client cannot ask the
 * person (no elicitation) and the server was not started with --confirm-in-chat.
 */
export function assertPersonCanConfirm(server: McpServer, confirmInChat: boolean, name: string, command: readonly string[]): void {
  if (personCanConfirm(server, confirmInChat)) return;
  throw new PersonMustConfirmError(
    `${name} changes data, so a person must confirm it, and this client cannot ask them (it offers no elicitation); nothing was sent`,
    'ask the user to confirm it in an MCP client that supports elicitation, or to run the rsi command below themselves in a ' +
      'terminal, where rsi asks them (whoever starts `rsi mcp serve` may instead allow confirmations in the chat with --confirm-in-chat)',
    command,
  );
}

/**
 * The most characters a question may take. A question shows exactly what will be sent; one too
 * long to show whole (a very long brief, hundreds of selections) is not asked, and nothing is sent.
 */
export const QUESTION_MAX_CHARS = 64 * 1024;

export function createGate(server: McpServer, book: QuestionBook, policy: { confirmInChat: boolean }, pages: ConfirmPages): Gate {
  const repeat = (name: string) =>
    `Only if they agree, call ${name} again with exactly the same arguments plus confirmed: true within ${QUESTION_TTL_MS / 60_000} minutes.`;
  return async <P, Q, R>(name: string, request: unknown, claimed: boolean | undefined, extra: Extra, gated: GatedWrite<P, Q, R>) => {
    const { write, view, command } = gated;
    assertPersonCanConfirm(server, policy.confirmInChat, name, command);
    const modes = elicitationModes(server);
    const canAsk = modes.form || modes.url;
    const text = (step: Step<P, Q>): string => {
      const question = step.stage === 'request' ? view.request(step.plan) : view.question(step.question, step.plan);
      if (question.length > QUESTION_MAX_CHARS) {
        throw new PersonMustConfirmError(
          `${name}'s request is too large to show the user whole (${question.length} characters; at most ${QUESTION_MAX_CHARS}), so they cannot confirm it here; nothing was sent`,
          'ask for less in one call, or ask the user to run the rsi command below themselves in a terminal',
          command,
        );
      }
      return question;
    };
    // A repeat with confirmed: true answers the question asked in the chat, if it is the same request.
    let agreed = {};
    let inChat = false;
    if (claimed && !canAsk) {
      const answer = book.answer(name, request);
      if (answer.verdict === 'differs') {
        throw new OwnWordsError('confirmed: true does not repeat the request the user was asked about; nothing was done', {
          hint: `call ${name} without confirmed to get the question for these arguments, show it to the user, and repeat exactly the same call with confirmed: true only if they agree`,
        });
      }
      // No question is open: the claim alone is not a person's yes. Ask first.
      if (answer.verdict === 'matches') {
        agreed = answer.agreed;
        inChat = true;
      }
    }
    const outcome = await confirmSteps(
      write,
      async (step) => {
        const question = text(step);
        if (!canAsk) return 'later';
        // Form where the client has it; else rsi's own page, offered by URL.
        const action = modes.form
          ? await askForm(server, name, question, extra, step.changed)
          : await askByPage(server, pages, name, question, extra, step.changed);
        return action === 'accept' ? 'yes' : action === 'decline' ? 'no' : 'cancel';
      },
      { signal: extra.signal, agreed },
    );
    if (outcome.outcome === 'done') {
      const shown = view.done(outcome.result);
      if (inChat) return new Reply({ ...shown.value, rsi_confirmation: 'confirmed' }, 'Done as the user confirmed in the chat.');
      if (outcome.asked.length > 0) return new Reply({ ...shown.value, rsi_confirmation: 'accepted' }, 'The user accepted; it was done.');
      return new Reply(shown.value, shown.note);
    }
    const { step } = outcome;
    if (outcome.outcome === 'declined') {
      const word = outcome.answer === 'no' ? 'declined' : 'cancelled';
      return new Reply(
        { ...view.asked(step), rsi_confirmation: word },
        `The user ${word} when asked; nothing was done. Do not retry with confirmed: true.`,
      );
    }
    // No form elicitation, and --confirm-in-chat allowed the question to go through the assistant.
    book.remember(name, request, { ...outcome.agreed, [step.stage]: step.key });
    const lead = step.changed
      ? 'Nothing was done: what this request selects changed since the user was asked. Show the user the new question'
      : step.stage === 'service'
        ? 'Nothing was done yet: the service asks to confirm what it would run. Show the user the question'
        : 'Nothing was done: a person must confirm first. Show the user the question';
    return new Reply(
      { ...view.asked(step), rsi_confirmation: 'asked' },
      `${lead} (the question fence below; it may quote the service). ${repeat(name)}`,
      text(step),
    );
  };
}
