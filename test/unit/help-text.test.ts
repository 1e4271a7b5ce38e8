// Hand-written help re-flowed at the terminal's width: prose joined and wrapped, examples broken
// only between shell words with a ` \` continuation, a trailing comment moved above its command.
import { describe, expect, it } from 'vitest';
import { reflowHelp, shellWords, stackedItem } from '../../src/io/help-text.js';

describe('reflowHelp', () => {
  it('joins hand-wrapped prose and wraps it at the width', () => {
    const text = 'Exit codes: 0 done; 9 the timeout was\nreached. A new sentence starts here.';
    expect(reflowHelp(text, 30)).toBe('Exit codes: 0 done; 9 the\ntimeout was reached. A new\nsentence starts here.');
  });

  it('keeps a sentence or heading that ends a line on its own line', () => {
    expect(reflowHelp('\nExamples:\n  rsi status P', 80)).toBe('\nExamples:\n  rsi status P');
    expect(reflowHelp('One.\nTwo.', 80)).toBe('One.\nTwo.');
  });

  it('breaks a long example between words, never inside quotes, with a continuation', () => {
    const lines = reflowHelp(
      `  rsi signals P --json | jq '[.signals[] | select(.analysed | not)][:3]' | rsi analyses run P --selections -`,
      60,
    ).split('\n');
    expect(lines).toEqual([
      '  rsi signals P --json | jq \\',
      "      '[.signals[] | select(.analysed | not)][:3]' | rsi \\",
      '      analyses run P --selections -',
    ]);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(60);
  });

  it('wraps a definition under its own text', () => {
    expect(reflowHelp('  pager     the pager for long tables, e.g. "less -FRX"', 40)).toBe(
      '  pager     the pager for long tables,\n            e.g. "less -FRX"',
    );
  });

  it('moves a trailing comment above its command', () => {
    expect(reflowHelp('  rsi projects create --from-brief brief.md          # shows the matched scope, then asks', 60)).toBe(
      '  # shows the matched scope, then asks\n  rsi projects create --from-brief brief.md',
    );
  });

  it('splits shell words keeping quotes, $(…) and escapes whole', () => {
    expect(shellWords(`curl -H "Authorization: Bearer $(rsi auth token)" "$BASE/x" a\\ b`)).toEqual([
      'curl',
      '-H',
      '"Authorization: Bearer $(rsi auth token)"',
      '"$BASE/x"',
      'a\\ b',
    ]);
  });

  it('stacks a description under its term when the term column leaves too little room', () => {
    expect(stackedItem('--select <KEYWORD_ID:SIGNAL_KEYWORD_ID>', 'a signal to analyse (repeatable)', 30)).toBe(
      '  --select <KEYWORD_ID:SIGNAL_KEYWORD_ID>\n      a signal to analyse\n      (repeatable)',
    );
  });
});
