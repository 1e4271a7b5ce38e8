/**
 * What a command's action reaches through the Context (settings, the network, credentials, the
 * session, the API client), loaded as one module on the first `ctx.loadSettings()`: one file and one round of the
 * ES module loader instead of one per part, which cost ~5 % of one GET (docs/performance.md,
 * round 3). Help never loads it.
 */
export { profileWords, readSettings, resolveCredentials } from './auth/credentials.js';
export { openSession } from './auth/session.js';
export { ApiClient } from './client/client.js';
export { Network } from './http/network.js';
