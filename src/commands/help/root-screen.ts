/**
 * The root's screen answered before anything else loads: bin/rsi.js and the single executable's
 * boot script call `answerRootHelp` first, as they answer `--version`, so `rsi --help` reads one
 * small file instead of commander and the command tree (docs/performance.md). The build bundles
 * this file alone (dist/root-help.cjs) with the command list it generates (RSI_COMMAND_SUMMARIES,
 * src/build/summaries.mjs); the text is the one src/program.ts renders, from ./root-help.ts.
 *
 * What it leaves to the full path: any other line, and a terminal whose locale is not UTF-8 (where
 * rsi writes `…` as `...`, src/io/ascii.ts). The update notice, which follows commands at a
 * terminal, does not follow this screen, as it does not follow `--version`.
 */
import { utf8Locale } from '../../io/pictures.js';
import { type RootItem, renderRootHelp } from './root-help.js';

declare const RSI_COMMAND_SUMMARIES: string | undefined;

/** The stream the root's screen goes to for these words (`rsi` alone: stderr), or undefined when they ask for another. */
export function rootScreenStream(argv: readonly string[]): 'stdout' | 'stderr' | undefined {
  if (argv.length === 0) return 'stderr';
  return argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') ? 'stdout' : undefined;
}

/**
 * Writes the root's screen when `argv` asks for it and the build listed the commands; true when it
 * did. A write the machine refuses (a full disk: `rsi --help > /dev/full`) is left to the full path,
 * which says so (exit 12, in the error format asked for): false, as nothing was written. A reader
 * that left (`rsi --help | head -1`) is no error.
 */
export function answerRootHelp(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  const which = rootScreenStream(argv);
  if (which === undefined || typeof RSI_COMMAND_SUMMARIES === 'undefined') return false;
  if (process[which].isTTY && !utf8Locale(env)) return false;
  const items = (JSON.parse(RSI_COMMAND_SUMMARIES) as (RootItem & { hidden?: boolean })[]).filter((c) => !c.hidden);
  // src/io/io.ts's helpWidth: the terminal's width when stdout is one, else 80.
  const width = process.stdout.isTTY ? process.stdout.columns || process.stderr.columns || 80 : 80;
  const bytes = Buffer.from(renderRootHelp(items, width));
  const { writeSync } = process.getBuiltinModule('node:fs');
  let written = 0;
  try {
    while (written < bytes.length) written += writeSync(which === 'stdout' ? 1 : 2, bytes, written);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') return true;
    // Nothing written: the full path writes it again and reports what fails.
    if (written === 0) return false;
    // Part of it written (the disk filled up on the way): said in one line, as the full path would.
    process.stderr.write(`rsi: cannot write the output (${which}): ${(error as Error).message}\n`);
    process.exitCode = 12;
  }
  return true;
}
