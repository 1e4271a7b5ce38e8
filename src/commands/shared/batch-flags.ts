/**
 * The options every batch command (`<keyword>` given as `-`) takes, declared once (issue 57, item
 * 4): each command's declaration spreads them after its own, and the batch (batch.ts) reads them.
 */
import { UsageError } from '../../errors.js';
import { type OptionSpecs, text } from './options.js';

/** `--resume FILE`, for a command that reads a batch from `-`. */
export const BATCH_OPTIONS = {
  resume: {
    flags: '--resume <file>',
    description: "with -: skip the inputs FILE (this batch's earlier output) answered, and continue it",
    parse: text(),
  },
} satisfies OptionSpecs;

/** `--resume`'s file, checked: only with `-`. */
export function resumeFlag(keyword: string, resume: string | undefined): string | undefined {
  if (resume !== undefined && keyword.trim() !== '-')
    throw new UsageError('--resume continues a batch: give - as the keyword, and the inputs on stdin');
  return resume;
}
