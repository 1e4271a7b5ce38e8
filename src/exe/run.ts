/** Runs main() as the process, with the last-resort error bin/rsi.js gets from Node. */
export function run(main: () => Promise<number>): void {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      // main() maps every error itself; this is the last resort.
      process.stderr.write(`rsi: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
