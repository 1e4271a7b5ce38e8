/**
 * Turning what users type into ids: the use case is src/ops/resolve.ts, shared with `rsi mcp
 * serve`; the commands import it from here, and the UUID pattern from src/client/ids.ts.
 */
export { UUID_RE } from '../../client/ids.js';
export {
  type ResolvedKeyword,
  type ResolvedProject,
  resolveKeyword,
  resolveProject,
  resolveProjectLazily,
} from '../../ops/resolve.js';
