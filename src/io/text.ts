/**
 * Small text helpers every layer shares: the one quoting rule for commands rsi suggests, and the
 * one way of writing a duration.
 *
 * A command rsi suggests (a hint, a "Next:" line, an MCP "run this") is something a person will
 * paste into a shell, and its words often come from the service (a project name, a scope from a
 * 403) or from what the person typed. So it is built from words with `shellCommand`, never by
 * joining strings: a copy-paste of a project named `$(curl …|sh)` or a scope `x;rm -rf ~` runs
 * rsi with that text as one argument and nothing else. test/unit/architecture.test.ts keeps this
 * the only quoting function, and keeps `rsi …` in backticks free of `${…}` built by hand.
 */

/** Safe bare in bash, zsh, dash and fish: no expansion, no word splitting, no zsh `=cmd`. */
const BARE = /^[A-Za-z0-9_@%+:,./-][A-Za-z0-9_@%+=:,./-]*$/;
/** What stays special inside double quotes (`!` is bash's history expansion). */
const SPECIAL_IN_DOUBLE = /["$`\\!]/;
/**
 * What a word cannot show as it is: a backtick (it would end the command's backticks in a hint),
 * control characters and invisible format characters (the terminal would not show them as typed).
 */
const UNPRINTABLE = /[`\p{Cc}\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/u;

/**
 * One shell word as a person would type it: bare when plainly safe, in double quotes when only
 * spaces or harmless signs need them (`"My first project"`), else in single quotes with each `'`
 * written `'\''` (nothing inside single quotes is special). A word with a backtick, a control or an
 * invisible character is written `$'…'` with those escaped (bash, zsh, ksh and busybox sh read it),
 * so what is printed is what is pasted.
 */
export function shellQuote(word: string): string {
  if (BARE.test(word)) return word;
  if (UNPRINTABLE.test(word)) return `$'${word.replace(/[\\'`\p{Cc}\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/gu, escapeC)}'`;
  if (!SPECIAL_IN_DOUBLE.test(word)) return `"${word}"`;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** One character as an ANSI-C escape (inside `$'…'`). */
function escapeC(c: string): string {
  const named: Record<string, string> = { '\\': '\\\\', "'": "\\'", '\n': '\\n', '\t': '\\t', '\r': '\\r' };
  if (named[c]) return named[c];
  const code = c.codePointAt(0)!;
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** A word the person fills in (`<url>`, `<project>`, `…`), printed as it is. */
export interface Placeholder {
  placeholder: string;
}

/** `<name>` for the person to fill in; `…` for "more of the same". */
export function placeholder(name: string): Placeholder {
  return { placeholder: name === '…' ? name : `<${name}>` };
}

/** A command line from its words, each quoted: `shellCommand(['rsi', 'status', name])`. */
export function shellCommand(words: readonly (string | Placeholder)[]): string {
  return words.map((w) => (typeof w === 'string' ? shellQuote(w) : w.placeholder)).join(' ');
}

/** A suggested command as hints print it: the command line in backticks. */
export function suggest(words: readonly (string | Placeholder)[]): string {
  return `\`${shellCommand(words)}\``;
}

/** A word of a command line as written (`raw`) and as the shell passes it (`word`). */
export interface CommandWord {
  raw: string;
  word: string;
}

/**
 * The words of a command line `shellCommand` wrote (bare, "double" or 'single' quoted words, and
 * words glued from quoted parts, placeholders such as `<url>` kept as they are); undefined for
 * anything else (an unclosed quote, `$` outside single quotes), so a caller never edits a command
 * line it could not read.
 */
export function commandWords(line: string): CommandWord[] | undefined {
  const words: CommandWord[] = [];
  let word: string | undefined;
  let from = 0;
  const end = (at: number) => {
    if (word !== undefined) words.push({ raw: line.slice(from, at), word });
    word = undefined;
  };
  for (let i = 0; i < line.length; ) {
    const c = line[i]!;
    if (word === undefined) from = i;
    if (c === ' ') {
      end(i);
      i++;
    } else if (c === '$' && line[i + 1] === "'") {
      const read = readAnsiC(line, i + 2);
      if (!read) return undefined;
      word = (word ?? '') + read.text;
      i = read.next;
    } else if (c === "'" || c === '"') {
      const close = line.indexOf(c, i + 1);
      if (close < 0) return undefined;
      const inner = line.slice(i + 1, close);
      if (c === '"' && SPECIAL_IN_DOUBLE.test(inner)) return undefined;
      word = (word ?? '') + inner;
      i = close + 1;
    } else if (c === '\\' && line[i + 1] === "'") {
      word = `${word ?? ''}'`;
      i += 2;
    } else {
      if (/[$`\\!;&|(){}*?~#]/.test(c)) return undefined;
      word = (word ?? '') + c;
      i++;
    }
  }
  end(line.length);
  return words;
}

/** The text of a `$'…'` word from `from` (after the opening quote) to its closing quote. */
function readAnsiC(line: string, from: number): { text: string; next: number } | undefined {
  let text = '';
  for (let i = from; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") return { text, next: i + 1 };
    if (c !== '\\') {
      text += c;
      continue;
    }
    const e = line[++i];
    const hex = e === 'x' ? /^[0-9a-f]{2}/i.exec(line.slice(i + 1)) : e === 'u' ? /^[0-9a-f]{4}/i.exec(line.slice(i + 1)) : null;
    if (hex) {
      text += String.fromCodePoint(Number.parseInt(hex[0], 16));
      i += hex[0].length;
    } else if (e === 'n' || e === 't' || e === 'r') text += { n: '\n', t: '\t', r: '\r' }[e];
    else if (e === '\\' || e === "'") text += e;
    else return undefined;
  }
  return undefined;
}

/** A compact human duration: `45 s`, `1.5 s`, `2 min 5 s`. */
export function formatSeconds(ms: number): string {
  const s = ms / 1000;
  if (s < 60) return `${Number.isInteger(s) ? s : Number(s.toFixed(1))} s`;
  const m = Math.floor(s / 60);
  const rest = Math.round(s - m * 60);
  return rest === 0 ? `${m} min` : `${m} min ${rest} s`;
}

/**
 * A message or error text at most `max` characters long: cut, with a count of what was cut, so
 * an argument of a megabyte echoed in an error does not come back whole.
 */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  // Never split a surrogate pair.
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}… [${text.length - end} more characters cut]`;
}

/**
 * Edits between two words: insertions, deletions, substitutions, and a swap of two neighbours
 * (`nmae` is one from `name`), as people mistype.
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The names a mistyped `word` most likely meant, closest first (at most `max`): those within a
 * third of its length in edits (at least one), case ignored. None: nothing is close.
 */
export function closestNames(word: string, names: readonly string[], max = 3): string[] {
  const w = word.toLowerCase();
  const limit = Math.max(1, Math.floor(w.length / 3));
  return [...new Set(names)]
    .map((name) => ({ name, d: editDistance(w, name.toLowerCase()) }))
    .filter((c) => c.d <= limit)
    .sort((a, b) => a.d - b.d)
    .slice(0, max)
    .map((c) => c.name);
}
