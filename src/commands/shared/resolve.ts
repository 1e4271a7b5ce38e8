/**
 * Turning what users type into ids: `<project>` is a UUID or an exact project name; `<keyword>` a
 * UUID or a name matched exactly (case-insensitive) on name or synonym through search.
 */
import type { ApiClient, Project } from '../../client/client.js';
import { AmbiguousNameError, UsageError } from '../../errors.js';

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function resolveProject(client: ApiClient, ref: string, signal?: AbortSignal): Promise<Project> {
  const wanted = ref.trim();
  if (!wanted) throw new UsageError('the project must be a UUID or a project name');
  const { projects } = await client.listProjects(signal);
  if (UUID_RE.test(wanted)) {
    // A project the caller cannot list is still tried by id: the server answers 403 or 404 itself.
    return projects.find((p) => p.id.toLowerCase() === wanted.toLowerCase()) ?? { id: wanted.toLowerCase(), name: wanted, role: 'viewer' };
  }
  const exact = projects.filter((p) => p.name === wanted);
  const matches = exact.length ? exact : projects.filter((p) => p.name.toLowerCase() === wanted.toLowerCase());
  if (matches.length === 1) return matches[0]!;
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
  if (exact.length === 1) return { id: exact[0]!.id, name: exact[0]!.name };
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
      ? `did you mean: ${near.join(', ')}? (\`rsi keywords search ${JSON.stringify(wanted)}\`)`
      : `try \`rsi keywords search ${JSON.stringify(wanted)}\``,
  });
}
