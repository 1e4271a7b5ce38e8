import { Command } from 'commander';
import type { Context } from '../../../context.js';
import { printListing } from '../../../io/replies.js';
import { PROJECT_COLUMNS } from './views.js';
import { target } from '../../shared/flags.js';

/** `rsi projects list` takes no flags of its own. */
export type ListOptions = Record<string, never>;

export function build(ctx: Context, runF: typeof run = run): Command {
  return new Command('list').description('list the projects you belong to, with your role').action(async () => runF({}, ctx));
}

export async function run(_opts: ListOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  const body = await client.listProjects(ctx.signal);
  const out = target(ctx);
  await printListing(out, {
    document: body,
    rows: body.projects,
    columns: PROJECT_COLUMNS,
    empty: 'No projects yet: create one with `rsi projects create --name NAME`',
  });
}
