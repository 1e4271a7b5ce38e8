/**
 * Turning what a person (or an assistant) typed into ids, for both front-ends: `<project>` is a
 * UUID or an exact project name; `<keyword>` a UUID or a name matched exactly (case-insensitive)
 * on name or synonym through search. Failures are typed errors whose hint lists the near names.
 */
import type { ApiClient } from '../client/client.js';
import { isUuid } from '../client/ids.js';
import { AmbiguousNameError, ProjectNameError, UnexpectedReplyError, UsageError } from '../errors.js';
import { editDistance, suggest } from '../io/text.js';

/** What a use case needs of a project or keyword: its id for paths, a name for messages. */
export interface Resolved {
  id: string;
  name: string;
}
export type ResolvedProject = Resolved;
export type ResolvedKeyword = Resolved;

/** The part of the API client project resolution uses (a fake in tests needs no more). */
export type ProjectDirectory = Pick<ApiClient, 'listProjects'>;
/** The part of the API client keyword resolution uses. */
export type KeywordDirectory = Pick<ApiClient, 'searchKeywords'>;

export async function resolveProject(client: ProjectDirectory, ref: string, signal?: AbortSignal): Promise<ResolvedProject> {
  const wanted = ref.trim();
  if (!wanted) throw new UsageError('the project must be a UUID or a project name');
  // A UUID goes straight into the path: no `GET /projects` first, so a token holding only the
  // route's own scope (say `analyses:run`) suffices, and the server answers 403/404 itself.
  if (isUuid(wanted)) return { id: wanted.toLowerCase(), name: wanted };
  const { projects } = await client.listProjects(signal);
  const exact = projects.filter((p) => p.name === wanted);
  const matches = exact.length ? exact : projects.filter((p) => p.name.toLowerCase() === wanted.toLowerCase());
  if (matches.length === 1) return { id: serverId('project', matches[0]!.id, matches[0]!.name), name: matches[0]!.name };
  if (matches.length > 1) {
    throw new ProjectNameError(
      `several projects are named "${wanted}"`,
      wanted,
      matches.map((p) => `${p.id}  ${p.name}`),
      {
        hint: `use the id: ${matches.map((p) => p.id).join(', ')}`,
      },
    );
  }
  const names = projects.map((p) => p.name);
  const near = nearNames(wanted, names);
  throw new ProjectNameError(`no project named "${wanted}"`, wanted, names, {
    hint: names.length
      ? `${near.length ? `did you mean ${near.map((n) => `"${n}"`).join(' or ')}? ` : ''}your projects: ${names
          .slice(0, 10)
          .map((n) => `"${n}"`)
          .join(', ')}${names.length > 10 ? ', …' : ''}`
      : 'you have no projects yet: `rsi projects create --name …`',
  });
}

/**
 * The names a typo of `wanted` most likely meant (`Parkinsons targets` → `Parkinson's targets`):
 * equal but for case, spaces and punctuation, or within a few edits of it (a quarter of its length).
 */
export function nearNames(wanted: string, names: readonly string[]): string[] {
  const plain = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  const w = plain(wanted);
  const most = Math.max(1, Math.floor(w.length / 4));
  // Lengths further apart than `most` are further apart than that in edits too: not measured (a
  // name of a megabyte would otherwise take seconds against every project).
  const scored = names
    .map((name) => ({ name, p: plain(name) }))
    .filter(({ p }) => Math.abs(p.length - w.length) <= most)
    .map(({ name, p }) => ({ name, d: editDistance(w, p) }));
  const best = Math.min(...scored.map((s) => s.d));
  if (!Number.isFinite(best) || best > most) return [];
  return [...new Set(scored.filter((s) => s.d === best).map((s) => s.name))].slice(0, 3);
}

/**
 * A project's id without asking the API when it is already a UUID: the MCP-only features (the
 * scoreboard) then need no API sign-in. `client` is called only for a name.
 */
export async function resolveProjectLazily(
  client: () => Promise<ProjectDirectory>,
  ref: string,
  signal?: AbortSignal,
): Promise<ResolvedProject> {
  const wanted = ref.trim();
  if (isUuid(wanted)) return { id: wanted.toLowerCase(), name: wanted };
  return resolveProject(await client(), ref, signal);
}

export async function resolveKeyword(
  client: KeywordDirectory,
  ref: string,
  signal?: AbortSignal | Parameters<KeywordDirectory['searchKeywords']>[1],
): Promise<ResolvedKeyword> {
  const wanted = ref.trim();
  if (!wanted) throw new UsageError('the keyword must be a UUID or a keyword name');
  if (isUuid(wanted)) return { id: wanted.toLowerCase(), name: wanted };
  const lower = wanted.toLowerCase();
  const page = await client.searchKeywords({ q: wanted, limit: 20 }, signal);
  const exact = page.data.filter((k) => k.name.toLowerCase() === lower || k.synonyms.some((s) => s.toLowerCase() === lower));
  if (exact.length === 1) return { id: serverId('keyword', exact[0]!.id, exact[0]!.name), name: exact[0]!.name };
  if (exact.length > 1) {
    throw new AmbiguousNameError(
      `"${wanted}" matches several keywords`,
      exact.map((k) => `${k.id}  ${k.name} (${k.type})`),
      {
        hint: `use an id: ${exact.map((k) => `${k.name} ${k.id}`).join('; ')}`,
      },
    );
  }
  const near = page.data.slice(0, 5).map((k) => `${k.name} (${k.type})`);
  throw new AmbiguousNameError(`no keyword named "${wanted}"`, near, {
    hint: near.length
      ? `did you mean: ${near.join(', ')}? (${suggest(['rsi', 'keywords', 'search', wanted])})`
      : `try ${suggest(['rsi', 'keywords', 'search', wanted])}`,
  });
}

/**
 * An id the server gave us, about to go into a path: the spec says path ids are UUIDs, so anything
 * else (`..`, a slash, an empty string) is refused before it can reach a URL.
 */
function serverId(kind: 'project' | 'keyword', id: string, name: string): string {
  if (isUuid(id)) return id;
  throw new UnexpectedReplyError(`the service gave ${kind} ${JSON.stringify(name)} the id ${JSON.stringify(id)}, which is not a UUID`, {
    hint: `use the ${kind}'s UUID if you know it; run with --debug to see the reply`,
  });
}
