import * as z from 'zod';
import * as S from '../../client/schemas.js';
import { Reply } from '../ask.js';
import { output, project } from '../shapes.js';
import { defineTool, READ } from './tool.js';
import { resolveProject } from '../../ops/resolve.js';
import { countAnalyses, describeStatus } from '../../ops/status-reading.js';

const WaitOutput = z.object({
  outcome: z.enum(['done', 'analyses_failed', 'timed_out']),
  exit_code: z.union([z.literal(0), z.literal(9), z.literal(10)]).describe('what `rsi status --watch` would exit with'),
  message: z.string(),
  waited_seconds: z.number(),
  status: z.optional(S.ProjectStatus()),
  failed_analyses: z.array(z.looseObject({ keyword_id: z.string().optional(), keyword_name: z.string().optional() })),
});

export const waitForScoring = defineTool({
  name: 'wait_for_scoring',
  title: 'Wait for scoring',
  description:
    "Follows a project's status until the service no longer says wait (like `rsi status --watch`), then returns it with an " +
    'outcome: done (exit_code 0), analyses_failed (10: an analysis failed while waiting) or timed_out (9). Sends progress ' +
    'notifications (analyses finished of total) when the request has a progressToken; cancel the request to stop waiting. ' +
    "Clients time requests out (often after 60 s) unless progress resets the timer: keep timeout_seconds below your client's.",
  inputSchema: {
    project,
    interval_seconds: z.number().min(0.1).max(3600).optional().describe('pause between polls (default 2)'),
    timeout_seconds: z.number().min(0).max(86_400).optional().describe('give up after this long (default 300; 0 = no limit)'),
  },
  outputSchema: output(WaitOutput),
  annotations: READ,
  narrowWith: [],
  run: async (a, x, kit) => {
    const [{ waitForScoring }, c] = await Promise.all([import('../wait.js'), kit.api()]);
    const p = await resolveProject(c, a.project, x.signal);
    const token = x._meta?.progressToken;
    let sent = -1;
    const result = await waitForScoring((signal) => c.getProjectStatus(p.id, signal), {
      intervalMs: Math.round((a.interval_seconds ?? 2) * 1000),
      timeoutMs: Math.round((a.timeout_seconds ?? 300) * 1000),
      signal: x.signal,
      onStatus: async (status) => {
        if (token === undefined) return;
        const n = countAnalyses(status);
        const progress = n.done + n.failed;
        // MCP asks progress to increase with every notification: send when it did (and once at the start).
        if (progress <= sent) return;
        sent = progress;
        await x.sendNotification({
          method: 'notifications/progress',
          params: {
            progressToken: token,
            progress,
            ...(n.total ? { total: n.total } : {}),
            message: `${describeStatus(status)} (done ${n.done}, failed ${n.failed}, total ${n.total})`,
          },
        });
      },
    });
    // The message may quote a failed poll's error (the service's text): it stays in the fenced data.
    const note = `The wait ended: ${result.outcome} (exit_code ${result.exit_code}) after ${result.waited_seconds} s; the message is in the data.`;
    return new Reply(result, note, undefined, kit.projectPage(c.baseUrl, p.id));
  },
});
