/** The zod pieces the tools of `rsi mcp serve` share (src/mcp/tools/). */
import * as z from 'zod';
import type { Limit } from '../client/limits.js';

// The one UUID pattern (src/client/ids.ts), under the name the tools use.
export const project = z.string().min(1).describe('project UUID or exact project name');
export const keyword = z.string().min(1).describe('keyword UUID, or a name or synonym matched exactly (case-insensitive)');

/** What rsi adds to a result beside the service's data; declared in every outputSchema. */
export const Truncated = z
  .object({
    budget_bytes: z.number().int(),
    original_bytes: z.number().int(),
    left_out: z.array(z.string()),
    narrow_with: z.array(z.string()),
  })
  .describe('present only when rsi cut the reply to fit its size budget');
export const Confirmation = z
  .enum(['asked', 'accepted', 'declined', 'cancelled', 'confirmed'])
  .describe(
    'asked: nothing ran, the question went back to the assistant; accepted: the user accepted it through the client and it ran; ' +
      'declined/cancelled: the user said no, nothing ran; confirmed: a repeated call with confirmed: true matched the question and it ran',
  );
/**
 * A tool's output: a reply schema of src/client/schemas.ts (zod/mini) with the same members, loose
 * as it is, plus rsi_truncated.
 */
export const output = <T extends z.core.$ZodLooseShape>(schema: { shape: T }) =>
  z.looseObject({ ...schema.shape, rsi_truncated: Truncated.optional() });

/** An integer request parameter held to the API's limit (src/client/limits.ts), as the CLI's flag is. */
export const limited = (limit: Limit) => {
  const int = z.number().int().min(limit.min);
  return limit.max === undefined ? int : int.max(limit.max);
};
