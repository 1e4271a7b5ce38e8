/**
 * Help text that fits the terminal. commander wraps option and argument descriptions itself; the
 * paragraphs and examples commands add with `addHelpText` are re-flowed here at the same width:
 * prose is joined and broken at spaces, and an example is broken only between shell words, with a
 * ` \` continuation, so whatever a person copies from the screen still runs.
 */

/** Below this many columns for descriptions, an item's description goes under its term. */
export const MIN_DESCRIPTION_WIDTH = 24;
/** How far an example's continuation lines, or a description under its term, are indented. */
const HANGING = 4;

/**
 * Re-flows hand-written help text at `width`. Unindented lines are prose: a line is joined to the
 * next unless it ends a sentence or a heading (`.`, `:`, `!`, `?`), and the paragraph is wrapped.
 * Indented lines are examples or list items and keep their indentation; one too long is broken
 * between shell words (quotes and `$(…)` kept whole) with ` \`, its `# comment` moved above it.
 */
export function reflowHelp(text: string, width: number): string {
  const out: string[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length) out.push(...wrapProse(paragraph.join(' '), width));
    paragraph = [];
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      flush();
      out.push('');
    } else if (/^\s/.test(line)) {
      flush();
      out.push(...wrapExample(line, width));
    } else {
      paragraph.push(line.trim());
      if (/[.:!?]["')`]?$/.test(line.trimEnd())) flush();
    }
  }
  flush();
  return out.join('\n');
}

/** Lines of at most `width` characters, broken at spaces; a word longer than a line stays whole. */
export function wrapProse(text: string, width: number, indent = ''): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line || lines.length === 0) lines.push(indent + line);
  return lines;
}

function wrapExample(line: string, width: number): string[] {
  if (line.length <= width) return [line];
  // A definition ("  key   what it means"): the meaning wraps under itself, as commander's items do.
  const item = /^(\s+\S+\s{2,})(.*)$/.exec(line);
  if (item && !/^rsi\s/.test(item[2]!)) {
    const hang = ' '.repeat(item[1]!.length);
    const [first = '', ...rest] = wrapProse(item[2]!, width, hang);
    return [item[1]! + first.slice(hang.length), ...rest];
  }
  const indent = /^\s*/.exec(line)![0];
  let body = line.slice(indent.length);
  const lines: string[] = [];
  // A trailing comment goes on its own line above the command: the command is what gets copied.
  const comment = /\s{2,}(#\s.*)$/.exec(body);
  if (comment) {
    lines.push(...wrapProse(comment[1]!.slice(2), width, `${indent}# `));
    body = body.slice(0, comment.index);
  }
  const words = shellWords(body);
  let current = indent;
  let started = false;
  for (const word of words) {
    const more = started ? ` ${word}` : word;
    // Room is kept for the ` \` that ends every line but the last.
    if (started && current.length + more.length + 2 > width) {
      lines.push(`${current} \\`);
      current = `${indent}${' '.repeat(HANGING)}${word}`;
    } else current += more;
    started = true;
  }
  lines.push(current);
  return lines;
}

/** Splits a command line at spaces outside quotes, `$(…)` and brackets; the words keep their quoting. */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: string | undefined;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && quote !== "'" && i + 1 < text.length) {
      word += c + text[++i];
      continue;
    }
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '(' || c === '{' || c === '[') depth++;
    else if ((c === ')' || c === '}' || c === ']') && depth > 0) depth--;
    else if (c === ' ' && depth === 0) {
      if (word) words.push(word);
      word = '';
      continue;
    }
    word += c;
  }
  if (word) words.push(word);
  return words;
}

/**
 * commander's item layout (term, two spaces, wrapped description), except where the terms leave
 * fewer than MIN_DESCRIPTION_WIDTH columns: there commander would not wrap at all, so the
 * description goes on the lines under its term instead, as `man` lays out options.
 */
export function stackedItem(term: string, description: string, width: number): string {
  const pad = ' '.repeat(2 + HANGING);
  return [`  ${term}`, ...wrapProse(description, width, pad)].join('\n');
}
