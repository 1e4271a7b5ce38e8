// Which scenarios of @modelcontextprotocol/conformance (the version package.json pins) rsi is not
// run through, and why; shared by the wrapper (which does nothing for them) and the test (which
// checks the suite's list is exactly the passing ones plus these). docs/mcp.md ("Conformance")
// says the same in prose.

/** Scenarios that do not apply to rsi, a public client a person signs in with through a browser. */
export const NOT_APPLICABLE = {
  'auth/client-credentials-jwt': 'client credentials (SEP-1046) are for machine clients with no person to sign in',
  'auth/client-credentials-basic': 'client credentials (SEP-1046) are for machine clients with no person to sign in',
  'elicitation-sep1034-client-defaults': "rsi's MCP commands declare no elicitation capability: a command's arguments are its flags",
  'sse-retry': "rsi's MCP client does not resume event streams (the service's MCP server is stateless, one reply per POST)",
};

/**
 * Scenarios whose servers break a rule rsi keeps, so rsi refuses them, as it must: in 0.1.13 the
 * tenant-path authorization server of these two serves metadata whose `issuer` lacks the path
 * (`http://localhost:P` fetched for `http://localhost:P/tenant1`); RFC 8414 §3.3 says such
 * metadata "MUST NOT be used" (fixed in the suite's 0.1.16, which needs Node 22's fs.globSync).
 * The test checks rsi refuses them for exactly that reason, and nothing else.
 */
export const SUITE_DEFECTS = {
  'auth/metadata-var2': 'says its issuer is "http://localhost:',
  'auth/metadata-var3': 'says its issuer is "http://localhost:',
};
