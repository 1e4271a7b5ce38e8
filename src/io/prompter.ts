import { canPrompt, type Io } from './io.js';
import { ConfirmationRequiredError } from '../errors.js';
import { sanitizeLine } from './sanitize.js';

/**
 * Asking the person at the terminal. Commands depend on this port, never on @inquirer's prompts, so
 * tests script the answers and a question nobody expected fails the test.
 */
export interface Choice<T> {
  name: string;
  value: T;
  /** Shown under the list while this choice is the active one. */
  description?: string;
}

export interface Prompter {
  confirm(message: string, options?: { default?: boolean }): Promise<boolean>;
  /** One of `choices`, narrowed as the person types (the list is searched by name). */
  search<T>(message: string, choices: ReadonlyArray<Choice<T>>): Promise<T>;
  /** Any number of `choices`, ticked with space. */
  checkbox<T>(message: string, choices: ReadonlyArray<Choice<T>>): Promise<T[]>;
  /** A line of text; `validate` returns an error to show, or undefined. */
  input(message: string, options?: { validate?: (value: string) => string | undefined }): Promise<string>;
}

/**
 * The real prompter: the four @inquirer prompts rsi asks with, each from its own package (not the
 * whole @inquirer/prompts set, whose editor prompt alone was 776 kB of the bundle; issue 33),
 * loaded on first use and rendered on stderr, so stdout stays pure data even while a question is
 * on screen. Ctrl-C inside a prompt rejects with inquirer's
 * ExitPromptError, which `main.ts` turns into exit 130; an aborted `signal` does the same.
 * The question may carry server or project text, so it is sanitised; inquirer draws on the raw
 * stream with its own cursor controls.
 */
export function createPrompter(io: Io, signal?: AbortSignal): Prompter {
  const context = { input: io.stdin, output: io.stderrRaw ?? io.stderr, ...(signal ? { signal } : {}) };
  // Defence in depth: callers check canPrompt first, but a prompt nobody can answer would hang
  // (or, without a TTY, inquirer exits 0 silently), so refuse here too.
  const ask = (message: string): string => {
    const question = sanitizeLine(message);
    if (!canPrompt(io)) throw new ConfirmationRequiredError(`cannot ask "${question}": no terminal to answer on`);
    return question;
  };
  // Names come from the service: sanitised like every other text drawn on the terminal.
  const clean = <T>(choices: ReadonlyArray<Choice<T>>) =>
    choices.map((c) => ({
      name: sanitizeLine(c.name),
      value: c.value,
      ...(c.description ? { description: sanitizeLine(c.description) } : {}),
    }));
  return {
    async confirm(message, options = {}) {
      const question = ask(message);
      const { default: confirm } = await import('@inquirer/confirm');
      return confirm({ message: question, default: options.default ?? false }, context);
    },
    async search(message, choices) {
      const question = ask(message);
      const { default: search } = await import('@inquirer/search');
      const all = clean(choices);
      return search(
        {
          message: question,
          pageSize: 10,
          source: (term) => {
            const words = (term ?? '').toLowerCase().split(/\s+/).filter(Boolean);
            return all.filter((c) => words.every((w) => c.name.toLowerCase().includes(w)));
          },
        },
        context,
      );
    },
    async checkbox(message, choices) {
      const question = ask(message);
      const { default: checkbox } = await import('@inquirer/checkbox');
      return checkbox({ message: question, choices: clean(choices), pageSize: 15, loop: false }, context);
    },
    async input(message, options = {}) {
      const question = ask(message);
      const { default: input } = await import('@inquirer/input');
      const validate = options.validate;
      return input({ message: question, ...(validate ? { validate: (v: string) => validate(v) ?? true } : {}) }, context);
    },
  };
}
