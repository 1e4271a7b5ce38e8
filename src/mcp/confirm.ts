/**
 * Confirmation in the chat, allowed only by the person who started the server
 * (`rsi mcp serve --allow-write --confirm-in-chat`; gate.ts). The model's word is not a person's
 * yes: `confirmed: true` from the assistant is only a claim that it asked. So the question goes
 * back to the assistant and is remembered here; a later call with `confirmed: true` is honoured
 * only when it repeats exactly the request that question was about, in this session (this server
 * process), within QUESTION_TTL_MS, and only once. What it answers is kept as the keys of the
 * questions asked so far (ops' `Agreed`: the request's, the service's), so the steps resume where
 * they stopped, and go on only while what would run is still what the person was shown (the same
 * project, signals or scope items), since "the top 2" can name other signals a minute later. A
 * `confirmed: true` with no such question is asked first, like a call without it.
 */
import type { Agreed } from '../ops/confirm.js';

/** How long a question the assistant showed its user stays answerable. */
export const QUESTION_TTL_MS = 5 * 60 * 1000;

/** The same request in the same words: keys sorted, so property order does not matter. */
export function canonical(value: unknown): string {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
          .map((k) => [k, walk((v as Record<string, unknown>)[k])]),
      );
    return v;
  };
  return JSON.stringify(walk(value));
}

export type Verdict = 'matches' | 'no-question' | 'differs';

export class QuestionBook {
  private readonly asked = new Map<string, { tool: string; at: number; agreed: Agreed }>();
  constructor(private readonly now: () => number = Date.now) {}

  /**
   * Remembers that the assistant was handed a question about `request`; `agreed` is what an
   * identical repeat with confirmed: true says yes to (the keys of the questions asked so far).
   */
  remember(tool: string, request: unknown, agreed: Agreed): void {
    this.prune();
    this.asked.set(`${tool} ${canonical(request)}`, { tool, at: this.now(), agreed });
  }

  /**
   * Whether a `confirmed: true` call answers a question asked: `matches` takes the question (it
   * answers once); `differs` when questions of this tool are open but none about this request (a
   * widened or changed repeat); `no-question` when none is open.
   */
  answer(tool: string, request: unknown): { verdict: 'matches'; agreed: Agreed } | { verdict: Exclude<Verdict, 'matches'> } {
    this.prune();
    const key = `${tool} ${canonical(request)}`;
    const question = this.asked.get(key);
    if (question) {
      this.asked.delete(key);
      return { verdict: 'matches', agreed: question.agreed };
    }
    return { verdict: [...this.asked.values()].some((q) => q.tool === tool) ? 'differs' : 'no-question' };
  }

  private prune(): void {
    const oldest = this.now() - QUESTION_TTL_MS;
    for (const [k, q] of this.asked) if (q.at < oldest) this.asked.delete(k);
  }
}
