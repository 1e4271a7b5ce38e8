import { Command } from 'commander';
import { UsageError } from '../../errors.js';

/** `rsi help [command...]`: the help of the command the words name, however deep; `rsi help reference`: all of them. */
export function build(program: Command): Command {
  return new Command('help')
    .description('show help for a command, e.g. `rsi help analyses run`')
    .argument('[command...]', 'the command, as you would type it')
    .addHelpText(
      'after',
      '\n`rsi help reference` prints the help of every command, one after another (also installed as man pages: man rsi).',
    )
    .action(async (words: string[], _options: unknown, self: Command) => {
      // gh's `gh help reference`: no command is called `reference`, so the word cannot be mistaken.
      if (words.length === 1 && words[0] === 'reference' && !program.commands.some((c) => c.name() === 'reference')) {
        const { renderReference } = await import('./reference.js');
        const output = self.configureOutput();
        output.writeOut?.(renderReference(program, output.getOutHelpWidth?.() ?? 80, program.version() ?? ''));
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
