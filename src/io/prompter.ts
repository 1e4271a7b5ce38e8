import { canPrompt, type Io } from './io.js';
import { ConfirmationRequiredError } from '../errors.js';
import { sanitizeLine } from './sanitize.js';

/**
 * Asking the person at the terminal. Commands depend on this port, never on @inquirer/prompts, so
 * tests script the answers and a question nobody expected fails the test.
 */
export interface Prompter {
  confirm(message: string, options?: { default?: boolean }): Promise<boolean>;
}

/**
 * The real prompter: @inquirer/prompts (loaded on first use) rendered on stderr, so stdout stays
 * pure data even while a question is on screen. Ctrl-C inside a prompt rejects with inquirer's
 * ExitPromptError, which `main.ts` turns into exit 130; an aborted `signal` does the same.
 * The question may carry server or project text, so it is sanitised; inquirer draws on the raw
 * stream with its own cursor controls.
 */
export function createPrompter(io: Io, signal?: AbortSignal): Prompter {
  return {
    async confirm(message, options = {}) {
      // Defence in depth: callers check canPrompt first, but a prompt nobody can answer would hang
      // (or, without a TTY, inquirer exits 0 silently), so refuse here too.
      const question = sanitizeLine(message);
      if (!canPrompt(io)) {
        throw new ConfirmationRequiredError(`cannot ask "${question}": no terminal to answer on`);
      }
      const { confirm } = await import('@inquirer/prompts');
      return confirm(
        { message: question, default: options.default ?? false },
        { input: io.stdin, output: io.stderrRaw ?? io.stderr, ...(signal ? { signal } : {}) },
      );
    },
  };
}
