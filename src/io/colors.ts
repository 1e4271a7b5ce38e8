/**
 * Colour through chalk, at the level rsi decided in main.ts (`io.color` for stdout,
 * `io.colorStderr` for stderr: a TTY, no NO_COLOR, no --no-color). chalk's own detection is not
 * used: it looks at the process's stdout only, and rsi colours stdout and stderr separately.
 *
 * chalk loads on the first call, not at import: its module body detects colour support (which
 * loads node:tty) and builds every style, ~1.5 ms of a start that prints JSON and never paints
 * (docs/performance.md, round 3). As with `string-width` in sanitize.ts, `require` of this ES
 * module is bundled by esbuild as a lazily initialised module.
 */
import type { ChalkInstance } from 'chalk';

const instances: ChalkInstance[] = [];

export function paint(enabled: boolean): ChalkInstance {
  const level = enabled ? 1 : 0;
  if (!instances[level]) {
    const { Chalk } = require('chalk') as typeof import('chalk');
    instances[level] = new Chalk({ level });
  }
  return instances[level];
}
