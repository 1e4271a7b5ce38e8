// Issue 20, item 6, PowerShell (pwsh is not installable in CI): the generated script is read.
// Completions must be compared as text (no -like wildcards), inserted single-quoted with every
// quote mark doubled unless plainly a word, and never passed to Invoke-Expression or the like.
import { describe, expect, it } from 'vitest';
import { script } from '../../src/commands/completion/completion.js';
import { loadProgram } from '../../src/program.js';
import { fakeCtx, fakeIo } from '../support/fakes.js';

const ps = script('powershell', await loadProgram(fakeCtx(fakeIo(), 'tsv')));

describe('the PowerShell completion script', () => {
  it('never evaluates a value', () => {
    expect(ps).not.toMatch(/Invoke-Expression|\biex\b|\[ScriptBlock\]::Create|ExpandString/i);
  });

  it('compares candidates as text, not as wildcard patterns', () => {
    expect(ps).not.toMatch(/-like\s+["'$]/);
    expect(ps).toContain('$_.StartsWith($wordToComplete, [System.StringComparison]::OrdinalIgnoreCase)');
  });

  it('inserts anything but a plain word single-quoted, with every quote mark doubled', () => {
    const line = ps.split('\n').find((l) => l.includes('$text = '))!;
    expect(line).toContain(`if ($_ -match '^[A-Za-z0-9_./:@%+=-]+$') { $_ }`);
    // Typographic single quotes end a single-quoted string in PowerShell too.
    expect(line).toContain(`else { "'" + ($_ -replace "(['\\u2018\\u2019\\u201a\\u201b])", '$1$1') + "'" }`);
    expect(ps).toContain('[System.Management.Automation.CompletionResult]::new($text, $_,');
  });

  it('the plain-word test lets no PowerShell metacharacter through unquoted', () => {
    const plain = /^[A-Za-z0-9_./:@%+=-]+$/;
    for (const name of ['$(calc)', '`whoami`', 'a;b', 'a b', "it's", 'a‘b', '@(1)', '&x', 'a|b', '{x}', '(x)', '#x', '<x>', 'a,b'])
      expect(plain.test(name), name).toBe(false);
  });
});
