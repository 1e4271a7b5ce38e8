/**
 * The JSON Schema of every document `--json` prints (issue 43, item 2): `rsi help schema <command…>`
 * prints one, `npm run build` writes them all to dist/schemas/ (src/build/schemas.mjs), and
 * test/e2e/json-schemas.test.ts validates each command's real output against its own.
 *
 * The service's replies are the client's zod schemas (the ones every reply is parsed with), turned
 * into JSON Schema by zod: the published shape and the checked shape are one declaration. rsi's own
 * documents (doctor, auth status, config list, the batch rows, the tagged links of several
 * relations) are declared here in the same way. Objects are open (`additionalProperties`): the
 * service may add members, and rsi passes them on.
 */
import * as z from 'zod/mini';
import * as S from '../../client/schemas.js';
import { ScoreboardReply } from '../../ops/features.js';

/** One published document: what it is, and its shape (several shapes: one per way of running the command). */
interface DocumentSpec {
  description: string;
  shape: () => z.ZodMiniType;
  /** Printed one JSON document a line (`--watch`, `--wait`), each line this shape. */
  lines?: string;
}

const anyObject = () => z.looseObject({});
const batchError = () => z.object({ input: z.string(), error: z.string(), error_code: z.string() });
const tagged = () => z.extend(S.RelationItem(), { relation: z.string(), activity: z.nullable(z.string()) });

const authStatus = () =>
  z.looseObject({
    profile: z.string(),
    baseUrl: z.nullable(z.string()),
    signedIn: z.boolean(),
    source: z.nullable(z.enum(['RSI_TOKEN', 'keychain', 'file'])),
    scopes: z.array(z.string()),
    expiresAt: z.nullable(z.string()),
    storedLoginHidden: z.boolean(),
    clientId: z.nullable(z.string()),
    checked: z.boolean(),
    problem: z.nullable(z.string()),
  });

const mcpStatus = () =>
  z.looseObject({
    resource: z.nullable(z.string()),
    signedIn: z.boolean(),
    source: z.nullable(z.enum(['RSI_MCP_TOKEN', 'keychain', 'file'])),
    scopes: z.array(z.string()),
    expiresAt: z.nullable(z.string()),
    checked: z.boolean(),
    problem: z.nullable(z.string()),
  });

/** By command path, as `rsi help schema` takes it. Commands not listed print no JSON of their own (or the service's any JSON: `api`, `mcp call`). */
export const DOCUMENTS: Readonly<Record<string, DocumentSpec>> = {
  'keywords search': {
    description: 'One page of hits as the service sent it; with --all, one array of every hit.',
    shape: () => z.union([S.KeywordSearchPage(), z.array(S.KeywordHit())]),
  },
  'keywords get': {
    description:
      'The keyword card as the service sent it (sections of --include inside it); with `-` (a batch from stdin), one array: a card led by its input, or {input, error, error_code} for an item that failed, per input line.',
    shape: () => z.union([S.KeywordCard(), z.array(z.union([S.KeywordCard(), batchError()]))]),
  },
  'keywords relations': {
    description:
      'One relation: its page as the service sent it ({data, meta}); with --all, one array of its links. Several relations (--relation all, a list): {data: links each with relation and activity, meta: each page\u2019s meta}; with --all, one array of those links. With `-`: one array of rows, each the input with a link (and its relation and activity when several), with an error (and its error_code), or alone for an input without links.',
    shape: () =>
      z.union([
        S.RelationPage(),
        z.array(S.RelationItem()),
        z.looseObject({ data: z.array(tagged()), meta: z.array(S.RelationPage().shape.meta) }),
        z.array(tagged()),
        z.array(z.union([batchError(), z.extend(S.RelationItem(), { input: z.string() }), z.object({ input: z.string() })])),
      ]),
  },
  'projects list': { description: 'The projects as the service sent them.', shape: () => S.ProjectList() },
  'projects create': {
    description: 'The created project as the service sent it (with --from-brief, the MCP tool\u2019s reply).',
    shape: () => z.union([S.CreatedProject(), anyObject()]),
  },
  signals: { description: 'The signal list as the service sent it.', shape: () => S.SignalList() },
  opportunities: {
    description: 'The scored datasets and analysis counts as the service sent them: members keywords, project_analyses, error.',
    shape: () => S.OpportunityPayload(),
  },
  scoreboard: { description: 'The MCP scoreboard tool\u2019s structured reply.', shape: () => ScoreboardReply as never },
  status: {
    description: 'The project status as the service sent it.',
    shape: () => S.ProjectStatus(),
    lines: 'With --watch, one such document a line, each changed status, the last line the final state.',
  },
  'analyses run': {
    description: 'The service\u2019s reply to the run (runs started, selections skipped, or what it asks to confirm).',
    shape: () => S.AnalysesResult(),
    lines:
      'With --wait, the reply is the first line, then one project status (the `status` document) a line as it changes, the last the final state.',
  },
  doctor: {
    description: 'Every check, in order: its name, whether it passed (skipped counts as passed), what it found, and a hint when it failed.',
    shape: () =>
      z.array(
        z.object({
          name: z.string(),
          ok: z.boolean(),
          skipped: z.optional(z.literal(true)),
          detail: z.string(),
          hint: z.optional(z.string()),
        }),
      ),
  },
  'auth status': {
    description:
      'The profile in use (its sign-in for the API), its default project, its MCP sign-in, and every profile. source says where the token comes from.',
    shape: () => z.extend(authStatus(), { project: z.nullable(z.string()), mcp: mcpStatus(), profiles: z.array(authStatus()) }),
  },
  'config list': {
    description: 'The settings the config file holds (unset ones left out); project is per profile.',
    shape: () =>
      z.looseObject({
        format: z.optional(z.string()),
        pager: z.optional(z.string()),
        profile: z.optional(z.string()),
        prompts: z.optional(z.string()),
        time: z.optional(z.string()),
        projects: z.optional(z.record(z.string(), z.string())),
      }),
  },
  'mcp tools': {
    description: 'The MCP server\u2019s tools as it listed them (name, description, inputSchema, …).',
    shape: () => z.array(z.looseObject({ name: z.string(), inputSchema: anyObject() })),
  },
};

/** The JSON Schema (draft 2020-12) of a command's `--json` document, or undefined when it prints none of its own. */
export function documentSchema(path: string): Record<string, unknown> | undefined {
  const spec = DOCUMENTS[path];
  if (!spec) return undefined;
  const schema = z.toJSONSchema(spec.shape(), { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
  const { $schema, ...rest } = schema;
  return {
    $schema,
    title: `rsi ${path} --json`,
    description: spec.lines ? `${spec.description} ${spec.lines}` : spec.description,
    ...rest,
  };
}
