/**
 * Asking for what was left out, at a terminal only (gh does the same): a project picker for every
 * command taking a project, the unanalysed signals for `analyses run`, a name for `projects create`.
 * Without a terminal, or with RSI_NO_PROMPT=1 or the `prompts off` setting, nothing is asked and the
 * caller's usage error stands, exactly as before.
 */
import type { Context } from '../../context.js';
import type { Choice } from '../../io/prompter.js';
import { canPrompt } from '../../io/io.js';
import { UsageError } from '../../errors.js';
import type { DefaultProject } from './default-project.js';

/** stdin, stdout and stderr are the person's terminal, and prompts are not turned off. */
export function canAsk(ctx: Context): boolean {
  return canPrompt(ctx.io) && ctx.io.stdoutIsTTY && ctx.env.RSI_NO_PROMPT !== '1' && ctx.settings().prompts !== 'off';
}

/**
 * The project the person typed, else one picked from their projects, most recent first. The pick
 * is returned as its name (what the person would have typed, so messages and hints repeat it), or
 * as its id when another project has the same name.
 */
export async function projectOrPick(ctx: Context, given: string | undefined): Promise<string> {
  if (given !== undefined) return given;
  const fallback = defaultProject(ctx);
  if (fallback) {
    // Errors about it will say where it came from (default-project.ts).
    (await import('./default-project.js')).rememberDefault(ctx, fallback);
    return fallback.name;
  }
  if (!canAsk(ctx)) {
    throw new UsageError("missing required argument 'project'", {
      hint: 'name the project, or set a default: `rsi config set project NAME` (or RSI_PROJECT)',
    });
  }
  return pickProject(ctx);
}

/**
 * The project a command uses when none is named (gh's repository context, kubectl's namespace):
 * RSI_PROJECT, else the profile's `project` setting.
 */
export function defaultProject(ctx: Context): DefaultProject | undefined {
  const env = ctx.env.RSI_PROJECT?.trim();
  if (env) return { name: env, source: 'RSI_PROJECT' };
  const projects = ctx.settings().projects;
  const profile = ctx.globals().profile;
  // Own members only: a profile named `constructor` has no default project from Object.prototype.
  const setting = projects && Object.hasOwn(projects, profile) ? projects[profile] : undefined;
  return setting ? { name: setting, source: 'setting' } : undefined;
}

/** The picker over the person's projects, most recent first; the default project (if any) on top. */
export async function pickProject(ctx: Context, preferred?: string): Promise<string> {
  const { projects } = await (await ctx.client()).listProjects(ctx.signal);
  if (projects.length === 0) {
    throw new UsageError('you have no projects yet', { hint: 'create one: `rsi projects create --name …`' });
  }
  const time = (p: { created_at?: string | null | undefined }) => (p.created_at ? Date.parse(p.created_at) || 0 : 0);
  const first = (p: { name: string; id: string }) => (preferred !== undefined && (p.name === preferred || p.id === preferred) ? 1 : 0);
  const sorted = [...projects].sort((a, b) => first(b) - first(a) || time(b) - time(a));
  const named = new Map<string, number>();
  for (const p of projects) named.set(p.name, (named.get(p.name) ?? 0) + 1);
  const choices: Array<Choice<string>> = sorted.map((p) => ({
    name: p.name,
    value: named.get(p.name) === 1 ? p.name : p.id,
    description: `${first(p) ? 'the default · ' : ''}${p.role}${p.created_at ? `, created ${p.created_at.slice(0, 10)}` : ''} · ${p.id}`,
  }));
  return (await ctx.prompter()).search('Project (type to search)', choices);
}

export interface PickableSignal {
  keyword_id: string;
  signal_keyword_id: string;
  name?: string | null | undefined;
  type?: string | undefined;
  rank?: number | null | undefined;
  analysed?: boolean | undefined;
}

/** The project's signals not analysed yet (all, with --include-analysed), ticked in a checkbox. */
export async function pickSignals(
  ctx: Context,
  signals: readonly PickableSignal[],
  options: { includeAnalysed: boolean; projectName: string },
): Promise<Array<{ keyword_id: string; signal_keyword_id: string }>> {
  const offered = signals.filter((s) => options.includeAnalysed || !s.analysed);
  if (offered.length === 0) {
    throw new UsageError(`no ${options.includeAnalysed ? '' : 'unanalysed '}signals in "${options.projectName}" to choose from`, {
      hint: options.includeAnalysed
        ? '`rsi status` tells whether the scan is still running'
        : 'every signal was analysed before: add --include-analysed to run them again',
    });
  }
  const choices = offered.map((s) => ({
    name: `${s.name ?? s.signal_keyword_id}  (${s.type ?? '?'}${typeof s.rank === 'number' ? `, rank ${s.rank}` : ''}${s.analysed ? ', analysed' : ''})`,
    value: { keyword_id: s.keyword_id, signal_keyword_id: s.signal_keyword_id },
  }));
  return (await ctx.prompter()).checkbox(`Signals to analyse in "${options.projectName}" (space ticks, enter runs)`, choices);
}

/** The name for `projects create`, asked when --name was left out. */
export async function nameOrAsk(ctx: Context, given: string | undefined): Promise<string> {
  if (given !== undefined) return given;
  if (!canAsk(ctx)) throw new UsageError('--name is required');
  return (await ctx.prompter()).input('Project name', {
    validate: (v) => (v.trim() === '' ? 'the name must not be empty' : undefined),
  });
}
