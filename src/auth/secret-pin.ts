/**
 * A pre-registered client's secret goes only to the authorization server it was registered with
 * (issue 41.4). The MCP server's metadata chooses the authorization server, so without a pin a
 * changed (or hostile) metadata document could send `RSI_CLIENT_SECRET` to any token endpoint.
 * The pin is `--issuer` when given, else the issuer stored with the profile when this client id
 * signed in before; the first sign-in without `--issuer` pins the issuer it used (the profile
 * stores it), and says so.
 */
import type { ClientRegistration } from '../storage/config.js';
import { UnexpectedReplyError } from '../errors.js';
import { suggest } from '../io/text.js';

export interface SecretPin {
  clientId: string;
  /** `--issuer`: the authorization server the client was registered with, as the person said. */
  given?: string | undefined;
  /** The profile's MCP client from an earlier sign-in, if any. */
  stored?: ClientRegistration | undefined;
}

/** Issuers compare as URLs (`https://a.example` and `https://a.example/` are one). */
export function sameIssuer(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b;
  }
}

/** The issuer the client's secret is tied to, or undefined on a first sign-in without `--issuer`. */
export function pinnedIssuer(pin: SecretPin): { issuer: string; from: string } | undefined {
  if (pin.given !== undefined) return { issuer: pin.given, from: '--issuer' };
  const stored = pin.stored;
  if (stored?.preRegistered && stored.clientId === pin.clientId) return { issuer: stored.issuer, from: 'the profile' };
  return undefined;
}

/**
 * Refuses, before anything is sent, an authorization server other than the one the secret is tied
 * to. Returns the line to tell the person when this sign-in pins it for the first time.
 */
export function checkSecretPin(pin: SecretPin, issuer: string): string | undefined {
  const pinned = pinnedIssuer(pin);
  if (pinned === undefined) {
    return `The secret of client ${pin.clientId} is tied to ${issuer} from now on (stored with the profile); pass --issuer to name it yourself.`;
  }
  if (sameIssuer(pinned.issuer, issuer)) return undefined;
  throw new UnexpectedReplyError(
    `the MCP server's metadata names the authorization server ${issuer}, but client ${pin.clientId} was registered with ${pinned.issuer} (${pinned.from}); its secret was not sent`,
    {
      hint: `if the service really moved, sign in again with ${suggest(['rsi', 'login', '--resource', 'mcp', '--client-id', pin.clientId, '--issuer', issuer])} after checking with the service`,
    },
  );
}
