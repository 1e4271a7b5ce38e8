/**
 * A scripted Prompter for unit tests (kept out of src/ so no double ships in the bundle): it answers
 * the scripted questions in order and fails on any question it was not told to expect.
 */
import type { Prompter } from '../../src/io/prompter.js';

export interface ScriptedAnswer {
  /** The question expected, as an exact string or a pattern. */
  question: string | RegExp;
  answer: boolean;
}

/**
 * A prompter for tests: answers the scripted questions in order and throws on any question it was
 * not told to expect. `assertDone()` fails when a scripted question was never asked.
 */
export class ScriptedPrompter implements Prompter {
  readonly asked: string[] = [];
  private readonly script: ScriptedAnswer[];

  constructor(script: readonly ScriptedAnswer[] = []) {
    this.script = [...script];
  }

  async confirm(message: string): Promise<boolean> {
    this.asked.push(message);
    const next = this.script.shift();
    if (next === undefined) throw new Error(`unexpected question: "${message}"`);
    const matches = typeof next.question === 'string' ? next.question === message : next.question.test(message);
    if (!matches) throw new Error(`unexpected question: "${message}" (expected ${String(next.question)})`);
    return next.answer;
  }

  assertDone(): void {
    if (this.script.length > 0) {
      throw new Error(`questions never asked: ${this.script.map((s) => String(s.question)).join(', ')}`);
    }
  }
}
