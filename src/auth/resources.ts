/**
 * The two resources a token can be bound to (service-api.md, "Resources"): the API at
 * `<base>/api/v1` and the MCP server at `<base>/mcp`. A token for one is refused by the other, so
 * each has its own stored tokens: the MCP ones sit beside the API ones in the same store, under
 * the account `<profile>+mcp` (`+` cannot appear in a profile name, so no profile can collide).
 */
import { apiResourceOf } from '../http/api-path.js';
import type { CredentialKey } from '../storage/credentials.js';

export const RESOURCES = ['api', 'mcp'] as const;
export type Resource = (typeof RESOURCES)[number];

export function resourceUrl(baseUrl: string, resource: Resource = 'api'): string {
  return resource === 'mcp' ? `${baseUrl}/mcp` : apiResourceOf(baseUrl);
}

export function credentialKeyFor(key: CredentialKey, resource: Resource = 'api'): CredentialKey {
  return resource === 'mcp' ? { baseUrl: key.baseUrl, profile: `${key.profile}+mcp` } : key;
}
