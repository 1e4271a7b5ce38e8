/**
 * Turning what users type into ids: `<project>` is a UUID or an exact project name; `<keyword>` a
 * UUID or a name matched exactly (case-insensitive) on name or synonym through search.
 */
import { shellQuote } from '../../io/text.js';
import type { ApiClient } from '../../client/client.js';
import { AmbiguousNameError, UnexpectedReplyError, UsageError } from '../../errors.js';

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What a command needs of a project: its id for paths, a name for messages. */
export interface ResolvedProject {
  id: string;
  name: string;
}

export async function resolveProject(client: ApiClient, ref: string, signal?: AbortSignal): Promise<ResolvedProject> {
  const wanted = ref.trim();
  if (!wanted) throw new UsageError('the project must be a UUID or a project name');
  // A UUID goes straight into the path: no `GET /projects` first, so a token holding only the
  // route's own scope (say `analyses:run`) suffices, and the server answers 403/404 itself.
  if (UUID_RE.test(wanted)) return { id: wanted.toLowerCase(), name: wanted };
  const { projects } = await client.listProjects(signal);
  const exact = projects.filter((p) => p.name === wanted);
  const matches = exact.length ? exact : projects.filter((p) => p.name.toLowerCase() === wanted.toLowerCase());
  if (matches.length === 1) return { id: serverId('project', matches[0]!.id, matches[0]!.name), name: matches[0]!.name };
  if (matches.length > 1) {
    throw new AmbiguousNameError(
      `several projects are named "${wanted}"`,
      matches.map((p) => `${p.id}  ${p.name}`),
      {
        hint: `use the id: ${matches.map((p) => p.id).join(', ')}`,
      },
    );
  }
  const names = projects.map((p) => p.name);
  throw new AmbiguousNameError(`no project named "${wanted}"`, names, {
    hint: names.length
      ? `your projects: ${names
          .slice(0, 10)
          .map((n) => `"${n}"`)
          .join(', ')}${names.length > 10 ? ', …' : ''}`
      : 'you have no projects yet: `rsi projects create --name …`',
  });
}

export interface ResolvedKeyword {
  id: string;
  name: string;
}

export async function resolveKeyword(client: ApiClient, ref: string, signal?: AbortSignal): Promise<ResolvedKeyword> {
  const wanted = ref.trim();
  if (!wanted) throw new UsageError('the keyword must be a UUID or a keyword name');
  if (UUID_RE.test(wanted)) return { id: wanted.toLowerCase(), name: wanted };
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
      ? `did you mean: ${near.join(', ')}? (\`rsi keywords search ${shellQuote(wanted)}\`)`
      : `try \`rsi keywords search ${shellQuote(wanted)}\``,
  });
}

/**
 * An id the server gave us, about to go into a path: the spec says path ids are UUIDs, so anything
 * else (`..`, a slash, an empty string) is refused before it can reach a URL.
 */
function serverId(kind: 'project' | 'keyword', id: string, name: string): string {
  if (UUID_RE.test(id)) return id;
  throw new UnexpectedReplyError(`the service gave ${kind} ${JSON.stringify(name)} the id ${JSON.stringify(id)}, which is not a UUID`, {
    hint: `use the ${kind}'s UUID if you know it; run with --debug to see the reply`,
  });
}
