import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { type CommandDeclaration, commandFor } from '../declaration.js';
import { UsageError } from '../../errors.js';
import { environmentHelp } from './layout.js';
import { printJson } from '../../io/output.js';
import { on, type OptionSpecs, parseOptions, withOptions } from '../shared/options.js';

/** The options, as data: flags, help and parsers (src/commands/shared/options.ts). */
const OPTIONS = {
  man: {
    flags: '--man',
    description: "show the command's manual page with man (what `man rsi-<command>` shows where npm installed the pages)",
    parse: on(),
  },
} satisfies OptionSpecs;

/**
 * `rsi help [command...]`: the help of the command the words name, however deep;
 * `rsi help environment`: the global options; `rsi help reference`: every command's help.
 */
export const command: CommandDeclaration = {
  path: 'help',
  description:
    'show help for a command, e.g. `rsi help analyses run`; `rsi help environment`: the global options; `rsi help schema status`: the JSON Schema of its --json',
  examples: ['rsi help analyses run', 'rsi help environment', 'rsi help schema status', 'rsi help keywords search --man'],
  // Only a schema is JSON (`rsi help schema status --jq .required`); the list of them is text too.
  printsText: ({ args }) => {
    const words = (args[0] as string[] | undefined) ?? [];
    return words[0] === 'schema' && words.length > 1 ? undefined : 'prints help text (rsi help schema <command> prints JSON)';
  },
};

export function build(ctx: Context): Command {
  return withOptions(
    commandFor(command).argument('[command...]', 'the command, as you would type it, or environment, or reference, or schema <command…>'),
    OPTIONS,
  )
    .addHelpText(
      'after',
      "\n`rsi help reference` prints the help of every command, one after another (the same as man pages: `rsi help <command> --man`, or man rsi where npm installed them).\n`rsi help schema <command…>` prints the JSON Schema of the document the command's --json prints (also shipped in the package, dist/schemas/).",
    )
    .action(async (words: string[], flags: Record<string, unknown>, self: Command) => {
      const { man } = parseOptions(OPTIONS, flags);
      // The root: help is a command of the program itself.
      const program = self.parent ?? self;
      // gh's `gh help reference`: no command is called `reference` or `environment`, so neither
      // word can be mistaken for one.
      if (words.length === 1 && words[0] === 'reference' && !program.commands.some((c) => c.name() === 'reference')) {
        const { renderReference } = await import('./reference.js');
        const output = self.configureOutput();
        output.writeOut?.(renderReference(program, output.getOutHelpWidth?.() ?? 80, program.version() ?? ''));
        return;
      }
      // The global options and the environment: listed here once, pointed to from every screen.
      if (words.length === 1 && words[0] === 'environment') {
        program.configureOutput().writeOut?.(environmentHelp(program));
        return;
      }
      if (words[0] === 'schema' && !program.commands.some((c) => c.name() === 'schema')) {
        const { printSchema } = await import('./schema-command.js');
        const write = program.configureOutput().writeOut ?? (() => undefined);
        const out = ctx.output();
        // A document like any --json one: --jq filters it (`rsi help schema status --jq .required`).
        await printSchema(words.slice(1), write, async (schema, text) => (out.jq ? printJson(out, schema) : write(text)));
        return;
      }
      let cmd = program;
      for (const word of words) {
        const next = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
        if (!next) throw new UsageError(`unknown command "${words.join(' ')}"`, { hint: 'run `rsi help` for the list of commands' });
        cmd = next;
      }
      if (man) {
        // Rendered from this run's tree, as the build rendered dist/man/ (npm 12 links no man pages).
        const [{ renderManPage }, { showManual }] = await Promise.all([import('./reference.js'), import('../../io/manual.js')]);
        await showManual(renderManPage(cmd, program, ctx.version), ctx.io, ctx.env, ['rsi', 'help', ...words].join(' '));
        return;
      }
      cmd.outputHelp();
    });
}
