/**
 * Colour through chalk, at the level rsi decided in main.ts with `colourWanted` (`io.color` for stdout,
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

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Whether a stream gets colour, by the conventions people set in their shells, first match wins:
 * `--no-color`; NO_COLOR non-empty (no-color.org: an empty NO_COLOR= changes nothing);
 * FORCE_COLOR `0`/`false` off, any other value (even empty) on, even in a pipe; CLICOLOR_FORCE
 * non-empty and not `0` on, even in a pipe; CLICOLOR=0 off; TERM=dumb off; else a terminal only.
 */
export function colourWanted(env: Env, noColorFlag: boolean, isTTY: boolean): boolean {
  if (noColorFlag || (env.NO_COLOR ?? '') !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  if (env.CLICOLOR_FORCE && env.CLICOLOR_FORCE !== '0') return true;
  if (env.CLICOLOR === '0' || env.TERM === 'dumb') return false;
  return isTTY;
}

/**
 * JSON text (as stringifyJson wrote it) in gh's colours: keys bold blue, strings green, true and
 * false yellow, null cyan, brackets and punctuation bold, numbers plain. Only the tokens are
 * wrapped: the characters are those of the input, so copying from the screen gives the same JSON.
 */
export function colourJson(text: string, colour: ChalkInstance): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const token = text.slice(i, j + 1);
      const key = /^\s*:/.test(text.slice(j + 1, j + 3));
      out += key ? colour.bold.blue(token) : colour.green(token);
      i = j + 1;
    } else if ('{}[],:'.includes(c)) {
      out += colour.bold(c);
      i++;
    } else {
      const word = /^(true|false|null)\b/.exec(text.slice(i, i + 5));
      if (word) {
        out += word[1] === 'null' ? colour.cyan(word[1]) : colour.yellow(word[1]);
        i += word[1]!.length;
      } else {
        out += c;
        i++;
      }
    }
  }
  return out;
}
