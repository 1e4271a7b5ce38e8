/**
 * The MCP-only features of the service and the tools that carry them. The spec names no tool, so
 * rsi looks for these names in `tools/list` at run time (the sandbox's names first) and says so
 * clearly when a server offers none of them. The replies are parsed here, keeping unknown fields.
 */
import * as z from 'zod';
import { UUID_RE } from '../client/ids.js';
import { UnexpectedReplyError } from '../errors.js';

export const SCOREBOARD_TOOLS = ['project_scoreboard', 'scoreboard', 'get_scoreboard'] as const;
export const BRIEF_TOOLS = ['create_project_from_brief', 'project_from_brief', 'create_project_with_brief'] as const;

const score = z.number().nullable().optional();

export const ScoreboardReply = z.looseObject({
  project: z.looseObject({ id: z.string(), name: z.string() }).optional(),
  total: z.number().int().optional(),
  scoreboard: z.array(
    z.looseObject({
      rank: z.number().int(),
      name: z.string().nullable(),
      keyword_id: z.string().optional(),
      type: z.string().nullable().optional(),
      score,
      momentum: score,
      maturity: score,
      competition: score,
      risk: score,
      translation: score,
    }),
  ),
});
export type ScoreboardReply = z.infer<typeof ScoreboardReply>;

export const ScopeMatch = z.looseObject({
  entity_id: z.string(),
  entity_type: z.string(),
  entity_name: z.string().optional(),
  matched_text: z.string().optional(),
});
export type ScopeMatch = z.infer<typeof ScopeMatch>;

export const BriefReply = z.looseObject({
  name: z.string().optional(),
  matched: z.array(ScopeMatch),
  created: z.boolean(),
  project: z
    .looseObject({
      // A UUID, as the API's project ids: it goes into a suggested command and later paths.
      id: z.string().regex(UUID_RE, 'not a UUID'),
      name: z.string(),
      role: z.string(),
      setup_url: z.string(),
      scan_error: z.string().optional(),
    })
    .optional(),
});
export type BriefReply = z.infer<typeof BriefReply>;

/** Parses a tool's structuredContent, naming the tool and the field when it does not fit. */
export function parseReply<T extends z.ZodType>(tool: string, schema: T, value: unknown): z.infer<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new UnexpectedReplyError(
    `unexpected reply from the MCP tool ${tool}: ${issue.path.length ? issue.path.join('.') : '(structuredContent)'}: ${issue.message}`,
    { hint: 'run with --debug to see it; `rsi mcp call` prints it as is' },
  );
}
