/**
 * V8 flags set while rsi runs, and whether any were: a batch's `--optimize-for-size` (through
 * `Context.setV8Flags`, only where the command is the process) and `--jq`'s `--liftoff-only`
 * (src/io/jq.ts). The npm loader makes no code cache after such a run (src/main.ts,
 * `v8FlagsChanged`; src/exe/npm.ts): V8 rejects a cache made under other flags than the next run's.
 */
let changed = false;

/** Sets V8 flags for the rest of the process, and remembers that they changed. */
export function setV8Flags(flags: string): void {
  process.getBuiltinModule('node:v8').setFlagsFromString(flags);
  changed = true;
}

/** Whether this process set V8 flags since it started. */
export function flagsWereChanged(): boolean {
  return changed;
}
