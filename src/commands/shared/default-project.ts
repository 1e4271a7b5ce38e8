/**
 * The default project is checked (issue 43, item 4): `rsi config set project NAME` asks the service
 * whether NAME is one of the person's projects (did you mean …? when it is not, and nothing is
 * set), and a command that falls back on the default (RSI_PROJECT, or the setting) says where the
 * name came from in every error about it, so "no project named …" is never a puzzle.
 */
import type { Context } from '../../context.js';
import { CliError, NotFoundError, NotSignedInError, ProjectNameError } from '../../errors.js';
import { isUuid } from '../../client/ids.js';
import { placeholder, suggest } from '../../io/text.js';

/** The project a command uses when none is named, and where its name came from (pick.ts `defaultProject`). */
export interface DefaultProject {
  name: string;
  source: 'RSI_PROJECT' | 'setting';
}

/** The default a run fell back on, per Context: the errors about it are explained from here. */
const used = new WeakMap<Context, DefaultProject>();

export function rememberDefault(ctx: Context, project: DefaultProject): void {
  used.set(ctx, project);
}

/** Where the default came from, in words, and how to change it. */
function origin(ctx: Context, project: DefaultProject): { from: string; fix: string } {
  if (project.source === 'RSI_PROJECT')
    return { from: 'the default project, from RSI_PROJECT', fix: 'set RSI_PROJECT to one of them, or unset it' };
  const profile = ctx.globals().profile;
  const flag = profile === 'default' ? [] : ['--profile', profile];
  return {
    from: `the default project of profile ${profile}, from the config (${suggest(['rsi', 'config', 'set', 'project'])})`,
    fix: `change it: ${suggest(['rsi', ...flag, 'config', 'set', 'project', placeholder('NAME')])}, or ${suggest(['rsi', ...flag, 'config', 'unset', 'project'])}`,
  };
}

/**
 * An error about the default project the run fell back on, told where the name came from: a name
 * the caller has no project of (or several), or a UUID the service does not know. Same class, same
 * exit code.
 */
export function explainDefaultProject(error: unknown, ctx: Context): unknown {
  const project = used.get(ctx);
  if (!project) return error;
  const about =
    (error instanceof ProjectNameError && error.project === project.name.trim()) ||
    (error instanceof NotFoundError && isUuid(project.name));
  if (!about) return error;
  const { from, fix } = origin(ctx, project);
  const hint = error.hint ? `${error.hint}; ${fix}` : fix;
  Object.defineProperty(error, 'message', { value: `${error.message} (${from})` });
  Object.defineProperty(error, 'hint', { value: hint });
  return error;
}

/**
 * `rsi config set project VALUE`: the name as the service spells it, when the person is signed in
 * and VALUE names exactly one of their projects (a UUID: one of theirs). A name that matches none or
 * several is refused with the near names, and nothing is set. Signed out or offline, it cannot be
 * checked: it is set as given, with a warning (commands check it when they use it).
 */
export async function checkProjectSetting(ctx: Context, value: string): Promise<{ name: string; warning?: string }> {
  let projects: ReadonlyArray<{ id: string; name: string }>;
  try {
    projects = (await (await ctx.client()).listProjects(ctx.signal)).projects;
  } catch (error) {
    if (ctx.signal.aborted || !(error instanceof CliError)) throw error;
    const why = error instanceof NotSignedInError ? 'not signed in' : error.message;
    return { name: value, warning: `warning: "${value}" was not checked with the service (${why}); commands check it when they use it` };
  }
  if (isUuid(value)) {
    const found = projects.find((p) => p.id.toLowerCase() === value.toLowerCase());
    if (!found)
      throw new ProjectNameError(`none of your projects has the id ${value}; nothing was set`, value, [], {
        hint: 'list them: `rsi projects list`',
      });
    return { name: found.id };
  }
  const { resolveProject } = await import('../../ops/resolve.js');
  try {
    return { name: (await resolveProject({ listProjects: async () => ({ projects: [...projects] }) } as never, value)).name };
  } catch (error) {
    if (error instanceof ProjectNameError) {
      throw new ProjectNameError(`${error.message}; nothing was set`, value, error.candidates, error.hint ? { hint: error.hint } : {});
    }
    throw error;
  }
}
