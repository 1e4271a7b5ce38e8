import type { Command } from 'commander';
import type { Context } from '../../../context.js';
import { printListing } from '../../../io/replies.js';
import type { ProjectList } from '../../../client/schemas.js';
import { int, type OptionSpecs, type OptionsOf, parseOptions, withOptions } from '../../shared/options.js';
import { type CommandDeclaration, columnsOf, commandFor, type Field, field } from '../../declaration.js';

/** The options, as data: flags, help and parsers (src/commands/shared/options.ts). */
const OPTIONS = {
  // The first N projects (gh's habit; the service sends the whole list at once).
  limit: { flags: '--limit <n>', description: 'only the first N projects, in the service order (every format, --json too)', parse: int(1) },
} satisfies OptionSpecs;

export type ListOptions = Partial<OptionsOf<typeof OPTIONS>>;

type Project = ProjectList['projects'][number];

/** Each field with its column: the JSON member, the csv key and the table's column are one declaration. */
const FIELDS: readonly Field<Project>[] = [
  field('name'),
  field('role'),
  field('created_at', { header: 'CREATED', time: true }),
  field('id', { id: true }),
  field('brief', { flexible: true }),
];

export const command: CommandDeclaration = {
  path: 'projects list',
  description: 'list the projects you belong to, with your role',
  examples: ['rsi projects list', 'rsi projects ls --limit 2', "rsi projects list --json | jq -r '.projects[].name'"],
  fields: { rows: 'projects', list: FIELDS },
  sample: { line: [] },
};

export function build(ctx: Context, runF: typeof run = run): Command {
  return withOptions(commandFor(command).alias('ls'), OPTIONS).action(async (flags: Record<string, unknown>) =>
    runF(parseOptions(OPTIONS, flags), ctx),
  );
}

export async function run(opts: ListOptions, ctx: Context): Promise<void> {
  const client = await ctx.client();
  const body = await client.listProjects(ctx.signal);
  const out = ctx.output();
  // --limit cuts the list in every format, the JSON document's `projects` too (as gh's --limit does).
  const projects = opts.limit === undefined ? body.projects : body.projects.slice(0, opts.limit);
  await printListing(out, {
    document: opts.limit === undefined ? body : { ...body, projects },
    rows: projects,
    columns: columnsOf(FIELDS),
    empty: 'No projects yet: create one with `rsi projects create --name NAME`',
  });
}
