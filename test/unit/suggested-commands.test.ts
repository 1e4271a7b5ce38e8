// The one quoting function (src/io/text.ts): each word read back by bash as exactly that word, the
// reader of what it wrote, the hint rewriting that carries --profile as words, and a line wrapped
// for a terminal never breaking inside a backticked command.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { carryGlobals } from '../../src/commands/shared/hints.js';
import { hangLine } from '../../src/io/lines.js';
import { wrap } from '../../src/io/sanitize.js';
import { commandWords, placeholder, shellCommand, shellQuote, suggest } from '../../src/io/text.js';

const HOSTILE = [
  'plain',
  'My first project',
  "Bob's plan",
  '$(touch PWNED)',
  '`touch PWNED`',
  'a;b|c&d',
  '!x',
  '"q"',
  'back\\slash',
  'line\nbreak',
  'tab\there',
  'zero\u200bwidth',
  '=cmd',
  '~root',
  '',
  '-n',
  "P $(touch${IFS}X) `id`; '\"' $HOME !x & exit",
];

describe('shellQuote', () => {
  it("writes a word as a person would: bare, \"double\", 'single' or $'…'", () => {
    expect(shellQuote('KRAS')).toBe('KRAS');
    expect(shellQuote('mcp:basic,projects:write')).toBe('mcp:basic,projects:write');
    expect(shellQuote('My first project')).toBe('"My first project"');
    expect(shellQuote("Bob's plan")).toBe(`"Bob's plan"`);
    expect(shellQuote('$(touch PWNED)')).toBe("'$(touch PWNED)'");
    expect(shellQuote('`id`')).toBe("$'\\x60id\\x60'");
    expect(shellQuote('line\nbreak')).toBe("$'line\\nbreak'");
    // zsh's `=cmd` expansion: never bare.
    expect(shellQuote('=cmd')).toBe('"=cmd"');
  });

  it.each(HOSTILE)('bash reads %j back as exactly that one word', (word) => {
    const out = execFileSync('bash', ['--noprofile', '--norc', '-c', `printf '%s\\0' ${shellQuote(word)}`], { encoding: 'utf8' });
    expect(out).toBe(`${word}\0`);
  });

  it.each(HOSTILE)('commandWords reads %j back from what shellCommand wrote', (word) => {
    const line = shellCommand(['rsi', 'status', word, '--watch']);
    expect(commandWords(line)?.map((w) => w.word)).toEqual(['rsi', 'status', word, '--watch']);
  });

  it('prints no backtick and no control character, so a hint keeps its own backticks', () => {
    for (const word of HOSTILE) expect(suggest(['rsi', word]).slice(1, -1)).not.toMatch(/[`\p{Cc}]/u);
  });

  it('leaves a placeholder for the person to fill in as it is', () => {
    expect(suggest(['rsi', 'login', '--base-url', placeholder('url')])).toBe('`rsi login --base-url <url>`');
    expect(commandWords('rsi login --base-url <url>')?.map((w) => w.word)).toEqual(['rsi', 'login', '--base-url', '<url>']);
  });

  it('refuses to read a line it did not write', () => {
    expect(commandWords('rsi status $(id)')).toBeUndefined();
    expect(commandWords("rsi status 'open")).toBeUndefined();
    expect(commandWords('rsi status "$HOME"')).toBeUndefined();
  });
});

describe('carryGlobals', () => {
  const flags = { profile: 'my team', profileFlag: true, baseUrl: undefined, baseUrlFlag: false };

  it('adds --profile as quoted words after the command, a quoted name kept one word', () => {
    expect(carryGlobals('watch again with `rsi status "Hint watch" --watch`', flags)).toBe(
      'watch again with `rsi status --profile "my team" "Hint watch" --watch`',
    );
    expect(carryGlobals("try `rsi keywords search 'a$b'`", flags)).toBe('try `rsi keywords search --profile "my team" \'a$b\'`');
  });
});

describe('a line wrapped for a terminal', () => {
  const hint = 'hint: relations: 3 of 40 shown; all of them: `rsi keywords relations "EGFR inhibitor" --relation indications --all`';

  it('never breaks inside a backticked command: the command goes whole to its own line', () => {
    const lines = wrap(hint, 60, { breakWords: false });
    expect(lines).toContain('`rsi keywords relations "EGFR inhibitor" --relation indications --all`');
    expect(hangLine(hint, 80).split('\n').at(-1)!.trim()).toBe('`rsi keywords relations "EGFR inhibitor" --relation indications --all`');
  });

  it('still breaks the prose around it at spaces', () => {
    expect(wrap('one two three `rsi status P` four', 10, { breakWords: false })).toEqual(['one two', 'three', '`rsi status P`', 'four']);
  });
});
