/**
 * Colour through chalk, at the level rsi decided in main.ts (`io.color` for stdout,
 * `io.colorStderr` for stderr: a TTY, no NO_COLOR, no --no-color). chalk's own detection is not
 * used: it looks at the process's stdout only, and rsi colours stdout and stderr separately.
 */
import { Chalk, type ChalkInstance } from 'chalk';

const plain = new Chalk({ level: 0 });
const basic = new Chalk({ level: 1 });

export function paint(enabled: boolean): ChalkInstance {
  return enabled ? basic : plain;
}
