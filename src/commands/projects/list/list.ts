import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { printListing } from '../../../io/replies.js';
import { PROJECT_COLUMNS } from './views.js';
import { target } from '../../shared/flags.js';
import { type CommandDeclaration, commandFor, field } from '../../declaration.js';

/** `rsi projects list` takes no flags of its own. */
export type ListOptions = Record<string, never>;

export const command: CommandDeclaration = {
  path: 'projects list',
  description: 'list the projects you belong to, with your role',
  examples: ['rsi projects list', "rsi projects list --json | jq -r '.projects[].name'"],
  fields: { rows: 'projects', list: ['name', 'role', 'created_at', 'id', 'brief'].map((n) => field(n)) },
};

export function build(ctx: Context, runF: typeof run = run): Command {
  return commandFor(command).action(async () => runF({}, ctx));
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
