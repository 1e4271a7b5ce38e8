/**
 * A write is sent once, and rsi says whether it happened (issue 52). The network never sends a
 * write twice (src/http/resend.ts); when its reply is lost (the connection closed or reset after
 * the request went out, the reply cut, a timeout, Ctrl-C, SIGTERM or `--timeout`), this reads the
 * service back and tells one of three outcomes:
 *
 * - done: what the write made, found on the service (`confirmedByReadingBack(result)`), exit 0 (a
 *   signal still exits 130/143, saying what was done);
 * - not done: nothing was recorded (or nothing was sent), with the failure's own exit code;
 * - unknown: the read-back failed too: exit 8 with `check`, the command that shows it.
 *
 * Both writes (`projects create`, `analyses run`) and both front-ends (the CLI, its batches and
 * `--wait`; the MCP tools `create_project` and `run_analyses`) go through `sendOnce`. After a stop
 * the read-back gets one second (`READ_BACK_MS`), so the first Ctrl-C still ends rsi promptly.
 */
import type { ApiClient } from '../client/client.js';
import type { AnalysesResult, CreatedProject, CreateProjectBody, Project, ProjectStatus, RunAnalysesBody } from '../client/schemas.js';
import {
  AmbiguousNameError,
  CliError,
  CommandTimeoutError,
  ExitCode,
  InterruptedError,
  ServiceUnavailableError,
  WriteOutcomeError,
} from '../errors.js';
import { suggest } from '../io/text.js';

/** How long the read-back may take once a signal or the deadline stopped the command. */
export const READ_BACK_MS = 1000;

/** What a write needs of the front-end that drives it; all optional (the MCP tools pass only a signal). */
export interface WritePorts {
  /** The command's signal: Ctrl-C, SIGTERM, the `--timeout` deadline. */
  signal?: AbortSignal | undefined;
  /** Names the step under way, for the deadline's message. */
  step?: ((what: string) => void) | undefined;
  /** Runs the read-back so that leaving the process waits for it (the CLI's shield, src/io/shield.ts). */
  shield?: (<T>(fn: () => Promise<T>) => Promise<T>) | undefined;
}

/** How to tell whether one write happened. */
export interface ReadBack<R> {
  /** The request, for the deadline's message: `POST /projects`. */
  request: string;
  /** The write in words, for "whether … happened": `the creation of the project "Lung"`. */
  what: string;
  /** Reads the service: the write's result when it happened, undefined when it did not; throws when it cannot tell. */
  find(signal: AbortSignal): Promise<R | undefined>;
  /** What was done, in words, for a message that must say it (`created the project "Lung" (id …)`). */
  told(result: R): string;
  /** The command a person runs to see for themselves (words, quoted by the one quoting function). */
  check: readonly string[];
  /** A failure that is the service's own answer that nothing was done, beyond the usual ones. */
  answered?: ((error: unknown) => boolean) | undefined;
}

const readBack = new WeakSet<object>();

/** Whether this result was found by reading the service back after the write's reply was lost. */
export function confirmedByReadingBack(result: object): boolean {
  return readBack.has(result);
}

/** The line a front-end adds to a result found by reading back. */
export const READ_BACK_NOTE = "confirmed by reading back: the service's reply to the request was lost";

/** Replies that are the service's answer: the request was refused, so nothing was done. */
function answeredByService(error: unknown): boolean {
  if (!(error instanceof CliError)) return false;
  const refused: number[] = [
    ExitCode.usage,
    ExitCode.notSignedIn,
    ExitCode.forbidden,
    ExitCode.notFound,
    ExitCode.conflict,
    ExitCode.confirmationRequired,
  ];
  // 429 (after its retries): refused before any work. Other 5xx may come from a gateway after the work.
  return refused.includes(error.exitCode) || (error instanceof ServiceUnavailableError && error.status === 429);
}

/**
 * Sends a write once (`send` reports through `onSent` when a byte of it may have reached the
 * service) and, when its reply is lost, resolves the outcome by reading back (see above).
 */
export async function sendOnce<R extends object>(
  send: (signal: AbortSignal | undefined, onSent: () => void) => Promise<R>,
  back: ReadBack<R>,
  ports: WritePorts = {},
): Promise<R> {
  const { signal } = ports;
  let sent = false;
  ports.step?.(`the service to answer ${back.request}`);
  try {
    return await send(signal, () => {
      sent = true;
    });
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    // A reply came: the request reached the service, whatever the transport said.
    if (error instanceof ServiceUnavailableError && error.status !== undefined) sent = true;
    if (!sent) {
      // Nothing left this machine: not done, and saying so is all there is to it.
      if (answeredByService(error)) throw error;
      throw outcomeError(error, 'not_done', `${error.message}; nothing was sent, so ${back.what} did not happen`, {
        hint: stopped(signal) ? undefined : (error.hint ?? 'running the same command again is safe'),
      });
    }
    if (answeredByService(error) || back.answered?.(error)) throw error;
    ports.step?.(`reading the service back to see whether ${back.what} happened`);
    const grace = graceAfter(signal, READ_BACK_MS);
    let found: R | undefined;
    try {
      found = await (ports.shield ?? ((fn) => fn()))(() => back.find(grace.signal));
    } catch (readError) {
      const why = readError instanceof Error ? readError.message : String(readError);
      throw outcomeError(
        error,
        'unknown',
        `${error.message}; whether ${back.what} happened is unknown: reading the service back failed too (${why})`,
        { hint: `check with ${suggest(back.check)} before running it again`, check: back.check, exitCode: ExitCode.unavailable },
      );
    } finally {
      grace.dispose();
    }
    if (found === undefined) {
      throw outcomeError(error, 'not_done', `${error.message}; reading the service back shows ${back.what} did not happen`, {
        hint: stopped(signal) ? undefined : 'nothing was recorded: running the same command again is safe',
      });
    }
    readBack.add(found);
    // A signal ends the command all the same (130/143), saying what was done; the deadline does not
    // undo a write that was done: the front-end goes on and reports it (exit 0).
    if (signal?.aborted && signal.reason instanceof InterruptedError) {
      throw outcomeError(error, 'done', `${error.message}; ${back.told(found)} (${READ_BACK_NOTE})`, {});
    }
    return found;
  }
}

function stopped(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true && (signal.reason instanceof InterruptedError || signal.reason instanceof CommandTimeoutError);
}

function outcomeError(
  error: CliError,
  outcome: WriteOutcomeError['outcome'],
  message: string,
  options: { hint?: string | undefined; check?: readonly string[]; exitCode?: WriteOutcomeError['exitCode'] },
): WriteOutcomeError {
  return new WriteOutcomeError(message, outcome, {
    code: outcome === 'unknown' ? 'outcome_unknown' : error.code,
    exitCode: options.exitCode ?? error.exitCode,
    hint: options.hint,
    check: options.check,
    cause: error,
  });
}

/** A signal that aborts `ms` after `signal` does (or at once plus `ms` if it already has). */
function graceAfter(signal: AbortSignal | undefined, ms: number): { signal: AbortSignal; dispose(): void } {
  const grace = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const start = (): void => {
    timer = setTimeout(() => grace.abort(new ServiceUnavailableError(`no answer within ${ms / 1000} s of the stop`)), ms);
  };
  if (signal?.aborted) start();
  else signal?.addEventListener('abort', start, { once: true });
  return {
    signal: grace.signal,
    dispose: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', start);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// projects create

/** What `projects create` did: created (at once, or found by reading back), or found it existed (`ifAbsent`). */
export type CreateOutcome =
  | { outcome: 'created'; project: CreatedProject; namesakes: readonly string[] | undefined }
  | { outcome: 'existed'; project: CreatedProject };

const sameName = (name: string) => (p: Project) => p.name.trim().toLowerCase() === name.trim().toLowerCase();

/** A project from the list, in the created reply's shape: the spec gives setup_url's shape. */
function asCreated(client: Pick<ApiClient, 'setupUrl'>, p: Project): CreatedProject {
  return { id: p.id, name: p.name, role: p.role, setup_url: client.setupUrl(p.id) };
}

/**
 * Creates a project once. First it reads the project list: the projects already of this name
 * (case-insensitive, as names resolve), which `ifAbsent` returns instead of creating, and against
 * which a lost reply is read back. Without `ifAbsent` that look is best effort (a token without
 * service:read still creates), bounded by `lookMs`.
 */
export async function createProject(
  client: Pick<ApiClient, 'createProject' | 'listProjects' | 'setupUrl'>,
  body: CreateProjectBody,
  ports: WritePorts & { ifAbsent?: boolean; lookMs?: number; onWarning?: (line: string) => void } = {},
): Promise<CreateOutcome> {
  const { signal } = ports;
  const name = body.name.trim();
  ports.step?.('the project list (looking for a project of the same name)');
  let before: Project[] | undefined;
  try {
    const look = ports.lookMs !== undefined && !ports.ifAbsent ? AbortSignal.timeout(ports.lookMs) : undefined;
    const both = look && signal ? AbortSignal.any([signal, look]) : (look ?? signal);
    before = (await client.listProjects(both)).projects.filter(sameName(name));
  } catch (error) {
    if (ports.ifAbsent || signal?.aborted) throw error;
    // A token without service:read creates all the same, as documented; a service that did not
    // answer is worth a word (issue 52: the look timed out and nobody said so).
    if (error instanceof ServiceUnavailableError)
      ports.onWarning?.(
        `could not look for a project of the same name first (${error instanceof Error ? error.message : String(error)}); creating it`,
      );
  }
  if (ports.ifAbsent && before && before.length > 0) {
    if (before.length > 1) {
      throw new AmbiguousNameError(
        `--if-absent: ${before.length} projects are already named "${name}"`,
        before.map((p) => `${p.id}  ${p.name}`),
        { hint: 'nothing was created; name the one you mean by its id' },
      );
    }
    return { outcome: 'existed', project: asCreated(client, before[0]!) };
  }
  const known = before ? new Set(before.map((p) => p.id)) : undefined;
  const project = await sendOnce(
    (s, onSent) => client.createProject(body, s, onSent),
    { request: 'POST /projects', ...projectReadBack(client, name, known) },
    ports,
  );
  return { outcome: 'created', project, namesakes: before?.map((p) => p.id) };
}

/**
 * The read-back of a write that creates a project named `name` (`POST /projects`, the MCP brief
 * tool's confirmed call): a project of that name (case-insensitive) that was not among `known`,
 * the ids of that name listed before the write. Without that list (`known` undefined), a project of
 * that name cannot be told from one made before, so finding any is "cannot tell".
 */
export function projectReadBack(
  client: Pick<ApiClient, 'listProjects' | 'setupUrl'>,
  name: string,
  known: ReadonlySet<string> | undefined,
): Omit<ReadBack<CreatedProject>, 'request'> {
  return {
    what: `the creation of the project "${name}"`,
    check: ['rsi', 'projects', 'list', '--jq', `.projects[] | select(.name == ${JSON.stringify(name)})`],
    told: (p) => `the project "${p.name}" was created (id ${p.id})`,
    find: async (s) => {
      const now = (await client.listProjects(s)).projects.filter(sameName(name));
      if (known === undefined) {
        if (now.length === 0) return undefined;
        throw new ServiceUnavailableError(`${now.length} project(s) named "${name}" exist, and rsi could not list them before`);
      }
      const made = now.filter((p) => !known.has(p.id));
      return made.length > 0 ? asCreated(client, made[made.length - 1]!) : undefined;
    },
  };
}

/** The ids of the projects named `name` now (case-insensitive, as names resolve). */
export async function projectsNamed(client: Pick<ApiClient, 'listProjects'>, name: string, signal?: AbortSignal): Promise<Set<string>> {
  return new Set((await client.listProjects(signal)).projects.filter(sameName(name)).map((p) => p.id));
}

// ---------------------------------------------------------------------------------------------
// analyses run

/** Everything of a status that names an analysis: run ids, task ids, and keys of items without either. */
function marks(status: ProjectStatus): Set<string> {
  const out = new Set<string>();
  status.analyses.forEach((a, i) => {
    for (const id of itemIds(a)) out.add(id);
    if (itemIds(a).length === 0) out.add(`item:${a.keyword_id ?? a.keyword_name ?? i}:${a.updated_at ?? ''}:${a.status ?? ''}`);
  });
  return out;
}

function itemIds(a: ProjectStatus['analyses'][number]): string[] {
  const ids = (a.runs ?? []).map((r) => r.id).filter((id): id is string => typeof id === 'string');
  if (a.task_id) ids.push(a.task_id);
  return ids;
}

/**
 * The read-back of POST /analyses: the project's status before the first POST (its analyses and
 * runs), and after a lost reply the runs that were not there before. The status is read once
 * before any POST; a service that cannot give it then still gets the POST (the read-back then
 * tells only "nothing at all" apart from an unknown outcome).
 */
export function analysesReadBack(
  client: Pick<ApiClient, 'getProjectStatus'>,
  project: { id: string; name: string },
): { baseline(signal?: AbortSignal): Promise<void>; back(body: RunAnalysesBody): ReadBack<AnalysesResult> } {
  let before: Set<string> | undefined;
  let taken = false;
  return {
    async baseline(signal) {
      if (taken) return;
      taken = true;
      try {
        before = marks(await client.getProjectStatus(project.id, signal));
      } catch (error) {
        if (signal?.aborted || !(error instanceof CliError)) throw error;
      }
    },
    back: (body) => ({
      request: `POST /projects/${project.id}/analyses`,
      what: `the start of the analyses for "${project.name}"`,
      check: ['rsi', 'status', project.name],
      told: (r) => `${r.runs?.length ?? 0} ${r.runs?.length === 1 ? 'analysis was' : 'analyses were'} started for "${project.name}"`,
      // The spec: a 504 from POST /analyses recorded no run.
      answered: (error) => error instanceof ServiceUnavailableError && error.status === 504,
      find: async (signal) => {
        const status = await client.getProjectStatus(project.id, signal);
        const fresh = status.analyses.filter((a, i) => {
          const ids = itemIds(a);
          if (before === undefined) return true;
          return ids.length > 0
            ? ids.every((id) => !before!.has(id))
            : !before.has(`item:${a.keyword_id ?? a.keyword_name ?? i}:${a.updated_at ?? ''}:${a.status ?? ''}`);
        });
        if (fresh.length === 0) return undefined;
        if (before === undefined) {
          throw new ServiceUnavailableError(`the project has analyses, and rsi could not read its status before the request`);
        }
        const runs = fresh.flatMap((a) => {
          const listed = (a.runs ?? []).filter((r) => typeof r.id === 'string');
          return listed.length > 0
            ? listed.map((r) => ({ id: r.id as string, keyword_id: a.keyword_id ?? '', kind: typeof r.type === 'string' ? r.type : '' }))
            : [{ id: a.task_id ?? '', keyword_id: a.keyword_id ?? '', kind: '' }];
        });
        return { needs_confirmation: false, ...(body.top ? { limit: body.top.limit } : {}), runs, skipped: [] };
      },
    }),
  };
}
