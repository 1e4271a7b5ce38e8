import { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { environmentHelp } from './layout.js';

/** `rsi help [command...]`: the help of the command the words name, however deep. */
export function build(program: Command): Command {
  return new Command('help')
    .description('show help for a command, e.g. `rsi help analyses run`; `rsi help environment`: the global options')
    .argument('[command...]', 'the command, as you would type it, or environment')
    .action((words: string[]) => {
      // The global options and the environment: listed here once, pointed to from every screen.
      if (words.length === 1 && words[0] === 'environment') {
        program.configureOutput().writeOut?.(environmentHelp(program));
        return;
      }
      let cmd = program;
      for (const word of words) {
        const next = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
        if (!next) throw new UsageError(`unknown command "${words.join(' ')}"`, { hint: 'run `rsi help` for the list of commands' });
        cmd = next;
      }
      cmd.outputHelp();
    });
}
