// PLACEHOLDER: replaced by the real command.
import { Command } from 'commander';
import type { Context } from '../context.js';
import { CliError } from '../../errors.js';

export function build(_ctx: Context): Command {
  return new Command('status').action(() => {
    throw new CliError('not implemented yet');
  });
}
