/**
 * The write rule of `rsi mcp serve`: a person confirms, or nothing is sent. The protocol (first
 * request, question, confirmed request and its checks) is ops' pair (src/ops/confirm.ts), the same
 * one `rsi analyses run` and `rsi projects create --from-brief` drive; what is this front-end's is
 * only how the person is asked:
 *
 * - a client with form elicitation: rsi asks the person itself (ask.ts), and sends the confirmed
 *   request only when they accept;
 * - a client without it: the write is refused before anything is sent, with a tool error that
 *   says a person must confirm, and the `rsi` command they can run themselves; unless the person
 *   who started the server allowed confirmations in the chat (`--confirm-in-chat`), where the
 *   question goes back to the assistant and only an identical repeat with `confirmed: true` sends
 *   it (confirm.ts' QuestionBook), once.
 */
import { type ConfirmableWrite, commandLine } from '../ops/confirm.js';
import { askForm, type Extra, elicitationModes, OwnWordsError, Reply } from './ask.js';
import { QUESTION_TTL_MS, type QuestionBook } from './confirm.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

/** How a write's question and result read in this front-end. */
export interface WriteView<Q, R> {
  /** The question for a person, composed by rsi from the service's words (fenced when shown). */
  question(q: Q): string;
  /** What the question named (signals, scope items), to tell whether a repeat means the same. */
  fingerprint(q: Q): string;
  /** The value returned with a question (nothing was done). */
  asked(q: Q): Record<string, unknown>;
  /** The value (and a line in rsi's words) for a result. */
  done(r: R): { value: Record<string, unknown>; note?: string | undefined };
}

export interface GatedWrite<Q, R> {
  write: ConfirmableWrite<Q, R>;
  view: WriteView<Q, R>;
  /** The `rsi` command (its words, unquoted) a person can run to do the same at a terminal. */
  command: readonly string[];
}

export type Gate = <Q, R>(
  name: string,
  request: unknown,
  claimed: boolean | undefined,
  extra: Extra,
  gated: GatedWrite<Q, R>,
) => Promise<Reply>;

/**
 * Nobody here can confirm a write. The command a person can run carries the assistant's
 * arguments (a project name it may have read from the service): it is shown fenced (failure.ts).
 */
export class PersonMustConfirmError extends OwnWordsError {
  constructor(
    message: string,
    hint: string,
    readonly command: string,
  ) {
    super(message, { hint });
  }
}

/**
 * Throws, before anything is sent, when nobody can confirm a write here: the client cannot ask the
 * person (no form elicitation) and the server was not started with --confirm-in-chat.
 */
export function assertPersonCanConfirm(server: McpServer, confirmInChat: boolean, name: string, command: readonly string[]): void {
  if (elicitationModes(server).form || confirmInChat) return;
  throw new PersonMustConfirmError(
    `${name} changes data, so a person must confirm it, and this client cannot ask them (it offers no form elicitation); nothing was sent`,
    'ask the user to confirm it in an MCP client that supports elicitation, or to run the rsi command below themselves in a ' +
      'terminal, where rsi asks them (whoever starts `rsi mcp serve` may instead allow confirmations in the chat with --confirm-in-chat)',
    commandLine(command),
  );
}

export function createGate(server: McpServer, book: QuestionBook, policy: { confirmInChat: boolean }): Gate {
  const repeat = (name: string) =>
    `Only if they agree, call ${name} again with exactly the same arguments plus confirmed: true within ${QUESTION_TTL_MS / 60_000} minutes.`;
  return async <Q, R>(name: string, request: unknown, claimed: boolean | undefined, extra: Extra, gated: GatedWrite<Q, R>) => {
    const { write, view, command } = gated;
    assertPersonCanConfirm(server, policy.confirmInChat, name, command);
    const signal = extra.signal;
    const doneReply = (r: R, note?: string): Reply => {
      const shown = view.done(r);
      return new Reply(shown.value, note ?? shown.note);
    };
    const canAsk = elicitationModes(server).form;
    if (claimed && !canAsk) {
      const { verdict, fingerprint } = book.answer(name, request);
      if (verdict === 'matches') {
        // Ask the service again (it does nothing when it asks): the same words may name other
        // signals by now, and the user agreed to the ones they were shown.
        const again = await write.first(signal);
        if (!again.asks) return doneReply(again.result);
        if (view.fingerprint(again.question) === fingerprint) {
          const done = view.done(await write.confirmed(again.question, signal));
          return new Reply({ ...done.value, rsi_confirmation: 'confirmed' }, 'Done as the user confirmed in the chat.');
        }
        book.remember(name, request, view.fingerprint(again.question));
        return new Reply(
          { ...view.asked(again.question), rsi_confirmation: 'asked' },
          'Nothing was done: what this request selects changed since the user was asked. Show the user the new question ' +
            `(the question fence below; it quotes the service). ${repeat(name)}`,
          view.question(again.question),
        );
      }
      if (verdict === 'differs') {
        throw new OwnWordsError('confirmed: true does not repeat the request the user was asked about; nothing was done', {
          hint: `call ${name} without confirmed to get the question for these arguments, show it to the user, and repeat exactly the same call with confirmed: true only if they agree`,
        });
      }
      // No question is open: the claim alone is not a person's yes. Ask first.
    }
    const first = await write.first(signal);
    if (!first.asks) return doneReply(first.result);
    const question = view.question(first.question);
    const action = await askForm(server, name, question, extra);
    if (action === 'accept') {
      // The pair's checks hold here too: a service that asks again after the yes is an error, not "done".
      const done = view.done(await write.confirmed(first.question, signal));
      return new Reply({ ...done.value, rsi_confirmation: 'accepted' }, 'The user accepted; it was done.');
    }
    if (action !== undefined) {
      const word = action === 'decline' ? 'declined' : 'cancelled';
      return new Reply(
        { ...view.asked(first.question), rsi_confirmation: word },
        `The user ${word} when asked; nothing was done. Do not retry with confirmed: true.`,
      );
    }
    // No form elicitation, and --confirm-in-chat allowed the question to go through the assistant.
    book.remember(name, request, view.fingerprint(first.question));
    return new Reply(
      { ...view.asked(first.question), rsi_confirmation: 'asked' },
      `Nothing was done: a person must confirm first. Show the user the question (the question fence below; it may quote the service). ${repeat(name)}`,
      question,
    );
  };
}
