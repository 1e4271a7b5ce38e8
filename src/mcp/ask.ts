/**
 * Asking the person, by elicitation mode (MCP 2025-11-25):
 *
 * - a confirmation is a **form**-mode elicitation (a message and an empty form: accept, decline or
 *   cancel). Only a client that declares `elicitation.form` (or an empty `elicitation`, which the
 *   SDK reads as form) can be asked; a client with URL mode only cannot show a yes/no question, so
 *   it is treated as a client without elicitation (gate.ts: refused, unless the server was started
 *   with --confirm-in-chat);
 * - a page the person must open (the setup page on a 409 "finish scoring setup") is a **url**-mode
 *   elicitation when the client declares `elicitation.url`: the client shows the URL and opens it
 *   with the person's consent; rsi never learns what happens there, so nothing is retried.
 *
 * Everything rsi says here is in its own words; the service's words (the question it composes from
 * them) go in the question fence.
 */
import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { AnalysesResult } from '../client/schemas.js';
import { UsageError } from '../errors.js';
import { confirmPlan } from '../ops/analyses.js';
import { canonical } from './confirm.js';
import { escapeInvisible, fence, oneLine } from './fence.js';
import type { ConfirmPages } from './confirm-page.js';
import type { ResourceLink } from './results.js';

export type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A tool's value, with a line in rsi's words, a question quoting the service, and links beside it. */
export class Reply {
  constructor(
    readonly value: unknown,
    readonly note?: string,
    readonly question?: string,
    readonly links: readonly ResourceLink[] = [],
  ) {}
}

/** An error whose message and hint are rsi's own words only (no service text): shown unfenced. */
export class OwnWordsError extends UsageError {}

/** The elicitation modes the client declared. */
export function elicitationModes(server: McpServer): { form: boolean; url: boolean } {
  const e = server.server.getClientCapabilities()?.elicitation;
  return { form: e?.form !== undefined, url: e?.url !== undefined };
}

/** A person reads and decides: longer than a request's usual minute. */
const PERSON_MS = 10 * 60 * 1000;

/** Asks a yes/no question through form mode; undefined when the client has no form mode. */
export async function askForm(
  server: McpServer,
  tool: string,
  question: string,
  extra: Extra,
  changed = false,
): Promise<'accept' | 'decline' | 'cancel' | undefined> {
  if (!elicitationModes(server).form) return undefined;
  // The client may show the message in the conversation the model reads: the service's words (and
  // the assistant's arguments) are fenced there as everywhere.
  const lead = changed
    ? `What ${tool} would do changed since you were asked, so rsi asks you again before it changes data.`
    : `rsi asks you to confirm before ${tool} changes data.`;
  const message = `${lead} The question quotes the request and the service's words:\n${fence(tool, { text: question }, 'question')}`;
  try {
    const answer = await server.server.elicitInput(
      { mode: 'form', message, requestedSchema: { type: 'object', properties: {} } },
      { signal: extra.signal, timeout: PERSON_MS },
    );
    return answer.action;
  } catch (error) {
    if (extra.signal.aborted) throw error;
    // No answer is no yes.
    throw new OwnWordsError('could not ask the user to confirm (the client did not answer the elicitation request); nothing was done', {
      hint: 'ask again; the client must answer the elicitation request',
    });
  }
}

/**
 * Asks a yes/no question on a page rsi serves on loopback (confirm-page.ts), for a client with URL
 * mode only: the client offers the page's address, the person opens it, reads the question there
 * and answers there. `accept` only for a yes on the page; undefined when the client has no URL mode.
 */
export async function askByPage(
  server: McpServer,
  pages: ConfirmPages,
  tool: string,
  question: string,
  extra: Extra,
  changed = false,
): Promise<'accept' | 'decline' | 'cancel' | undefined> {
  if (!elicitationModes(server).url) return undefined;
  const heading = changed
    ? `What ${tool} would do changed since you were asked, so rsi asks you again before it changes data.`
    : `rsi asks you to confirm before ${tool} changes data.`;
  const page = await pages.open(heading, question);
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(), PERSON_MS);
  const signal = AbortSignal.any([extra.signal, timer.signal]);
  try {
    // rsi's words only: the question (with the service's) is on the page.
    const consent = await server.server.elicitInput(
      {
        mode: 'url',
        message: `${heading} Open the page to read exactly what would be sent, and answer there.`,
        url: page.url,
        elicitationId: page.id,
      },
      { signal, timeout: PERSON_MS },
    );
    if (consent.action !== 'accept') return consent.action;
    const answer = await new Promise<'yes' | 'no'>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      page.answer.then(resolve);
    });
    await server.server
      .createElicitationCompletionNotifier(page.id)()
      .catch(() => undefined);
    return answer === 'yes' ? 'accept' : 'decline';
  } catch (error) {
    if (extra.signal.aborted) throw error;
    // No answer is no yes.
    throw new OwnWordsError('the user did not answer the confirmation page in time; nothing was done', {
      hint: 'ask again; the user must open the page the client offers and answer there',
    });
  } finally {
    clearTimeout(timeout);
    page.close();
  }
}

/**
 * Offers the person a page to open (URL mode). Returns the person's answer, or undefined when the
 * client has no URL mode. `message` is rsi's own words; `url` one rsi checked (a service page).
 */
export async function offerPage(
  server: McpServer,
  message: string,
  url: string,
  extra: Extra,
): Promise<'accept' | 'decline' | 'cancel' | undefined> {
  if (!elicitationModes(server).url) return undefined;
  try {
    const answer = await server.server.elicitInput(
      { mode: 'url', message, url, elicitationId: randomUUID() },
      { signal: extra.signal, timeout: PERSON_MS },
    );
    return answer.action;
  } catch (error) {
    if (extra.signal.aborted) throw error;
    // The page is also in the tool's answer: not being able to offer it is no failure of its own.
    return undefined;
  }
}

/** Service text for a question a person reads: one line, cut, invisible characters shown. */
export const said = (text: string, max: number): string => escapeInvisible(oneLine(text, max));

/**
 * The question a person is asked about a run, from the service's own words. How many would run is
 * the plan `rsi analyses run` states too (ops' confirmPlan: the number the service acts on, never
 * the length of its preview), with the service's own numbers beside it.
 */
export function analysesQuestion(projectName: string, reply: AnalysesResult): string {
  const names = (reply.signals ?? []).map((s) => said(String(s.name ?? s.signal_keyword_id ?? '?'), 80));
  const shown = names.length > 10 ? `${names.slice(0, 10).join(', ')} and ${names.length - 10} more` : names.join(', ');
  const { count } = confirmPlan(reply);
  const numbers = [
    ...(count !== undefined ? [`${count} would run`] : []),
    ...(reply.limit !== undefined ? [`asked for ${reply.limit}`] : []),
    ...(reply.available !== undefined ? [`${reply.available} available`] : []),
    ...(names.length > 0 && count !== undefined && names.length !== count ? [`${names.length} listed`] : []),
  ];
  const assumption = said(reply.assumption ?? 'confirmation needed', 400).replace(/[.\s]+$/, '');
  return (
    `Run scoring analyses in the project "${said(projectName, 120)}"? The service says: ${assumption}` +
    `${numbers.length ? ` (${numbers.join(', ')})` : ''}.${shown ? ` Signals: ${shown}.` : ''}`
  );
}

/**
 * What a yes sends, exactly, for the person to read: the request's JSON (not cut: a question too
 * long to show whole is not asked; gate.ts), invisible characters shown.
 */
export const willSend = (what: string, body: unknown): string =>
  `If you agree, rsi sends ${what}: ${escapeInvisible(JSON.stringify(body))}`;

/** The fingerprint of a run's question: the signals it names. */
export const analysesFingerprint = (reply: AnalysesResult): string =>
  canonical((reply.signals ?? []).map((s) => [s.keyword_id, s.signal_keyword_id]));
