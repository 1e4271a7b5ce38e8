/**
 * The flags every batch command (`<keyword>` given as `-`) takes, declared once (issue 57, item 4):
 * each command's build() adds them, and the batch (batch.ts) reads them.
 */
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { nonEmpty } from './flags.js';

/** Adds `--resume FILE` to a command that reads a batch from `-`. */
export function batchFlags(command: Command): Command {
  return command.option('--resume <file>', "with -: skip the inputs FILE (this batch's earlier output) answered, and continue it");
}

/** `--resume`'s file, checked: only with `-`. */
export function resumeFlag(keyword: string, raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  if (keyword.trim() !== '-') throw new UsageError('--resume continues a batch: give - as the keyword, and the inputs on stdin');
  return nonEmpty('--resume', raw);
}
