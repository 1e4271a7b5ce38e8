/**
 * `rsi keywords relations --relation all` and lists (`--relation indications,assets`, `--activity
 * trials,papers`): which (relation, activity) pairs a run asks for, and how the rows of several
 * pairs print as one list, each led by the relation (and activity) it came from, so one file holds
 * every relation of a keyword (issue 43, item 1).
 */
import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import { ACTIVITIES, RELATIONS } from '../../../client/enums.js';
import { closestNames } from '../../../io/text.js';
import type { ApiClient } from '../../../client/client.js';
import type { RelationItem } from '../../../client/schemas.js';
import type { RequestOptions } from '../../../client/paging.js';
import type { Output } from '../../../io/formats.js';
import { printListing } from '../../../io/replies.js';
import type { Column } from '../../../io/columns.js';

/** A link of `--relation all` or a list: led by the relation (and activity, null but for sponsors) it came from. */
export type MultiLink = RelationItem & { relation: string; activity: string | null };

/** One request's worth of a relations run: the relation, and for sponsors the activity. */
export interface RelationQuery {
  relation: string;
  activity?: string | undefined;
}

/** `pipeline-targets`, `Pipeline_Targets`, `sponsor`: the intent is clear, so take it. */
export function relationName(raw: string): string {
  const snake = raw
    .trim()
    .toLowerCase()
    .replace(/[-\s]+/g, '_');
  return (RELATIONS as readonly string[]).includes(`${snake}s`) ? `${snake}s` : snake;
}

/** A comma-separated list of names, `all` meaning every one; each checked, each once, in the order given. */
function nameList<T extends string>(flag: string, raw: string, allowed: readonly T[], normalise: (word: string) => string): T[] {
  const found: T[] = [];
  for (const word of raw.split(',')) {
    if (word.trim() === '') continue;
    const name = normalise(word);
    if (name !== 'all' && !(allowed as readonly string[]).includes(name)) {
      // A typo gets the name it likely meant in the same line: one try to fix it.
      const near = closestNames(name, allowed);
      throw new UsageError(
        `${flag} must be one of ${allowed.join(', ')}, a comma-separated list of them, or all (got "${word.trim()}")${near.length ? ` (did you mean ${near.join(', ')}?)` : ''}`,
      );
    }
    const names = name === 'all' ? allowed : [name as T];
    for (const n of names) if (!found.includes(n)) found.push(n);
  }
  if (found.length === 0) throw new UsageError(`${flag} must name at least one of ${allowed.join(', ')}, or all`);
  return found;
}

/**
 * The pairs `--relation` and `--activity` ask for, in the order given (sponsors once per activity).
 * A lone `--relation sponsors` still needs `--activity` (the service requires one); when more than
 * one relation is asked (`all`, a list), sponsors without `--activity` means every activity.
 */
export function relationQueries(rawRelation: unknown, rawActivity: unknown): RelationQuery[] {
  const choices = `${RELATIONS.join(', ')}, a comma-separated list of them, or all`;
  if (rawRelation === undefined) throw new UsageError(`--relation is required: one of ${choices}`);
  const relations = nameList('--relation', String(rawRelation), RELATIONS, relationName);
  const activities =
    rawActivity === undefined ? undefined : nameList('--activity', String(rawActivity), ACTIVITIES, (w) => w.trim().toLowerCase());
  // The service ignores activity for other relations; silently dropping it would mislead.
  if (activities && !relations.includes('sponsors'))
    throw new UsageError(`--activity only applies with --relation sponsors (got --relation ${relations.join(',')})`);
  if (relations.length === 1 && relations[0] === 'sponsors' && !activities)
    throw new UsageError(`--activity is required with --relation sponsors: one of ${ACTIVITIES.join(', ')}, a list of them, or all`);
  return relations.flatMap((relation): RelationQuery[] =>
    relation === 'sponsors' ? (activities ?? ACTIVITIES).map((activity) => ({ relation, activity })) : [{ relation }],
  );
}

/** How a multi-relation run fetches: page size and offset as given, or every link (`--all`). */
export interface MultiFetch {
  all: boolean;
  limit: number | undefined;
  offset: number | undefined;
  /** The walk's options for one pair (`--all`): window, cap, warnings, progress. */
  walk: (q: RelationQuery) => Parameters<ApiClient['iterateRelations']>[1];
}

/** A link of one pair, led by the pair: `activity` is null for the relations that have none. */
export function tagged(q: RelationQuery, link: RelationItem): MultiLink {
  return { relation: q.relation, activity: q.activity ?? null, ...link };
}

/** One pair's links of one keyword: its page, or its whole walk (the walk's own generator, not wrapped in another). */
export function pairLinks(
  client: ApiClient,
  id: string,
  q: RelationQuery,
  how: MultiFetch,
  signal: AbortSignal | RequestOptions,
): AsyncIterable<RelationItem> {
  if (how.all) return client.iterateRelations(id, how.walk(q), signal);
  return (async function* page() {
    yield* (await client.listRelations(id, { ...q, limit: how.limit, offset: how.offset }, signal)).data;
  })();
}

/** Every pair's links of one keyword, in the pairs' order, each tagged with its pair. */
export async function* multiLinks(
  client: ApiClient,
  id: string,
  queries: readonly RelationQuery[],
  how: MultiFetch,
  signal: AbortSignal | RequestOptions,
): AsyncGenerator<MultiLink> {
  for (const q of queries) for await (const link of pairLinks(client, id, q, how, signal)) yield tagged(q, link);
}

/**
 * Several pairs for one keyword as one list. With `--all`, every link of each pair in turn (the
 * JSON document is one array of tagged links, as for one relation). Without, each pair's page,
 * fetched together; `--format json` prints `{"data": [tagged links], "meta": [each page's meta]}`.
 */
export async function printMulti(
  out: Output,
  ctx: Context,
  client: ApiClient,
  id: string,
  queries: readonly RelationQuery[],
  how: MultiFetch,
  columns: readonly Column<MultiLink>[],
): Promise<void> {
  if (how.all) {
    await printListing(out, { rows: multiLinks(client, id, queries, how, ctx.signal), columns, empty: 'No links' });
    return;
  }
  const pages = await Promise.all(queries.map((q) => client.listRelations(id, { ...q, limit: how.limit, offset: how.offset }, ctx.signal)));
  const rows = pages.flatMap((page, i) => page.data.map((link) => tagged(queries[i]!, link)));
  const label = (q: RelationQuery) => (q.activity ? `${q.relation} (${q.activity})` : q.relation);
  const more = pages.some((p) => p.meta.offset + p.data.length < p.meta.total);
  await printListing(out, {
    document: { data: rows, meta: pages.map((p) => p.meta) },
    rows,
    columns,
    empty: 'No links',
    footer: () =>
      `Showing ${pages.map((p, i) => `${label(queries[i]!)} ${p.data.length} of ${p.meta.total}`).join(', ')}${more ? '; every link with --all' : ''}`,
  });
}
