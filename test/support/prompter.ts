/**
 * A scripted Prompter for unit tests (kept out of src/ so no double ships in the bundle): it answers
 * the scripted questions in order and fails on any question it was not told to expect.
 */
import type { Choice, Prompter } from '../../src/io/prompter.js';

export interface ScriptedAnswer {
  /** The question expected, as an exact string or a pattern. */
  question: string | RegExp;
  /**
   * A confirm's answer; for search and checkbox, the choice names to pick (checkbox: any number),
   * which must be among those offered; for input, the text typed.
   */
  answer: boolean | string | string[];
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

  /** The choices each search or checkbox offered, in order. */
  readonly offered: string[][] = [];

  private next(message: string): ScriptedAnswer['answer'] {
    this.asked.push(message);
    const next = this.script.shift();
    if (next === undefined) throw new Error(`unexpected question: "${message}"`);
    const matches = typeof next.question === 'string' ? next.question === message : next.question.test(message);
    if (!matches) throw new Error(`unexpected question: "${message}" (expected ${String(next.question)})`);
    return next.answer;
  }

  async confirm(message: string): Promise<boolean> {
    return this.next(message) as boolean;
  }

  async search<T>(message: string, choices: ReadonlyArray<Choice<T>>): Promise<T> {
    return (await this.checkbox(message, choices))[0]!;
  }

  async checkbox<T>(message: string, choices: ReadonlyArray<Choice<T>>): Promise<T[]> {
    const answer = this.next(message);
    this.offered.push(choices.map((c) => c.name));
    return [answer as string | string[]].flat().map((name) => {
      const found = choices.find((c) => c.name === name);
      if (!found) throw new Error(`"${name}" was not offered; the choices: ${choices.map((c) => c.name).join(' | ')}`);
      return found.value;
    });
  }

  async input(message: string, options: { validate?: (value: string) => string | undefined } = {}): Promise<string> {
    const answer = this.next(message) as string;
    const invalid = options.validate?.(answer);
    if (invalid) throw new Error(`the scripted input "${answer}" was refused: ${invalid}`);
    return answer;
  }

  assertDone(): void {
    if (this.script.length > 0) {
      throw new Error(`questions never asked: ${this.script.map((s) => String(s.question)).join(', ')}`);
    }
  }
}
