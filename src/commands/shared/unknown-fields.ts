/**
 * A field name a command does not list, said in one line with the closest names it does list: a
 * typo takes one try to fix. `--fields nmae` (src/commands/shared/fields.ts) and `--json nmae`
 * (src/program.ts, where the word would otherwise be "too many arguments") say it alike. Light on
 * purpose: the usage-error path loads it.
 */
import type { CommandDeclaration } from '../declaration.js';
import { UsageError } from '../../errors.js';
import { closestNames } from '../../io/text.js';

/**
 * The error for names a command does not list, with the closest listed names in its one line (a
 * typo takes one try to fix), and every name in the hint. `flag`: as typed, `--fields` or `--json`.
 * `unlisted`: the name may also be a member the spec does not list (`--json nosuch`, one word
 * after --json that no field is close to), which `--json=NAME` or `--fields NAME` keep.
 */
export function unknownFields(flag: string, unknown: readonly string[], declaration: CommandDeclaration, unlisted = false): UsageError {
  const names = (declaration.fields?.list ?? []).map((f) => f.name);
  const near = [...new Set(unknown.flatMap((n) => closestNames(n.split('.')[0] ?? n, names)))];
  const meant = near.length > 0 ? ` (did you mean ${near.join(', ')}?)` : '';
  const word = unknown[0] ?? '';
  const member = unlisted && near.length === 0 ? `; a member the spec does not list: --json=${word} or --fields ${word}` : '';
  return new UsageError(
    `${flag}: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} for rsi ${declaration.path}${meant}`,
    {
      hint: `valid fields: ${names.join(', ')}${member}`,
    },
  );
}
