// Every client scenario of @modelcontextprotocol/conformance (the version package.json pins): the
// ones rsi must pass, and the ones it is not run through, and why. Shared by the wrapper (which
// refuses a scenario not named here, so a new one fails loudly rather than testing nothing) and
// the test (which checks the suite's list is exactly these). docs/mcp.md ("Conformance") says the
// same in prose.

/** The scenarios that must pass. */
export const MUST_PASS = [
  'initialize',
  'tools_call',
  'sse-retry',
  'auth/metadata-default',
  'auth/metadata-var1',
  'auth/metadata-var2',
  'auth/metadata-var3',
  'auth/offline-access-scope',
  'auth/offline-access-not-supported',
  'auth/basic-cimd',
  'auth/scope-from-www-authenticate',
  'auth/scope-from-scopes-supported',
  'auth/scope-omitted-when-undefined',
  'auth/scope-step-up',
  'auth/scope-retry-limit',
  'auth/token-endpoint-auth-basic',
  'auth/token-endpoint-auth-post',
  'auth/token-endpoint-auth-none',
  'auth/resource-mismatch',
  'auth/pre-registration',
  'auth/2025-03-26-oauth-metadata-backcompat',
  'auth/2025-03-26-oauth-endpoint-fallback',
];

/** Scenarios that do not apply to rsi, a public client a person signs in with through a browser. */
export const NOT_APPLICABLE = {
  'auth/client-credentials-jwt': 'client credentials (SEP-1046) are for machine clients with no person to sign in',
  'auth/client-credentials-basic': 'client credentials (SEP-1046) are for machine clients with no person to sign in',
  'elicitation-sep1034-client-defaults':
    "rsi's MCP commands declare no elicitation capability (a command's arguments are its flags): the server's elicitation/create is answered at once with JSON-RPC error -32601, so the call ends in seconds with the server's answer",
  'auth/cross-app-access-complete-flow':
    'enterprise-managed authorization (SEP-990): the client trades an ID token from the company identity provider for an ID-JAG and then a JWT-bearer grant; rsi has no identity-provider sign-in of its own to start from',
};

/**
 * Scenarios whose servers break a rule rsi keeps, so rsi refuses them, as it must, with the start
 * of the reason it gives. None in the pinned version: 0.1.13's tenant-path metadata-var2/var3
 * served an `issuer` without the path, which RFC 8414 §3.3 forbids using; 0.1.16 fixed that.
 */
export const SUITE_DEFECTS = {};
