/**
 * Turning what users type into ids is a use case both front-ends share: src/ops/resolve.ts. The
 * commands import it from there; this name stays for the tests that have always found it here.
 */
export { type ResolvedKeyword, type ResolvedProject, resolveKeyword, resolveProject } from '../../ops/resolve.js';
