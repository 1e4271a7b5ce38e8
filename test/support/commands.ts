/**
 * Command unit tests in the gh manner: `parseFlags` runs a command's `build(ctx, runF)` on an argv
 * and returns the options its action handed to `runF` (so no request can be sent), and
 * `fakeClient` records which ApiClient method was called with which arguments.
 */
import { Command } from 'commander';
import { expect } from 'vitest';
import type { Credentials } from '../../src/auth/credentials.js';
import { StoredTokenProvider } from '../../src/auth/tokens.js';
import { NotSignedInError } from '../../src/errors.js';
import { Network } from '../../src/http/network.js';
import type { ApiClient } from '../../src/client/client.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpConnection } from '../../src/mcp/client.js';
import type { CredentialStore } from '../../src/storage/credentials.js';
import type { Profile } from '../../src/storage/config.js';
import type { Context } from '../../src/context.js';
import { fakeClock, fakeCtx, fakeIo } from './fakes.js';
import type { Clock } from '../../src/io/io.js';
import { MemoryStore } from './memory-store.js';

type Build<O> = (ctx: Context, runF: (options: O, ctx: Context) => Promise<void>) => Command;

/**
 * Parses `argv` (after the command's own name) through `build`; resolves to the options `runF` got,
 * or rejects with what the action threw. A rejection proves `runF` was never called: a flag error
 * stops the command before it could reach the network.
 */
export async function parseFlags<O>(build: Build<O>, argv: string[], ctx: Context = fakeCtx(fakeIo(false), 'tsv')): Promise<O> {
  const calls: O[] = [];
  const cmd = build(ctx, async (o) => void calls.push(o));
  const root = new Command('rsi').exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  cmd.exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  root.addCommand(cmd);
  try {
    await root.parseAsync([cmd.name(), ...argv], { from: 'user' });
  } catch (error) {
    expect(calls, 'runF must not be called when parsing fails').toEqual([]);
    throw error;
  }
  expect(calls).toHaveLength(1);
  return calls[0]!;
}

export interface ClientCall {
  method: string;
  args: unknown[];
}

/**
 * An ApiClient whose methods are the given functions; every call is recorded (without the trailing
 * AbortSignal, which is the context's), and a method the test did not give fails the test.
 */
export function fakeClient(methods: Partial<Record<keyof ApiClient, (...args: never[]) => unknown>>): {
  client: Partial<ApiClient>;
  calls: ClientCall[];
} {
  const calls: ClientCall[] = [];
  const client = new Proxy(
    {},
    {
      get(_target, name) {
        if (typeof name !== 'string' || name === 'then') return undefined;
        const fn = (methods as Record<string, ((...args: unknown[]) => unknown) | undefined>)[name];
        return (...args: unknown[]) => {
          // What a call asked for: its trailing signal and callbacks (onSent) are how, not what.
          const shown = [...args];
          while (typeof shown.at(-1) === 'function') shown.pop();
          if (shown.at(-1) instanceof AbortSignal) shown.pop();
          calls.push({ method: name, args: shown });
          if (!fn) throw new Error(`unexpected client call: ${name}(${JSON.stringify(shown)})`);
          return fn(...args);
        };
      },
    },
  ) as Partial<ApiClient>;
  return { client, calls };
}

/** Lines of tab-separated output, split into cells. */
export function tsvRows(text: string): string[][] {
  return text
    .trimEnd()
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t'));
}

export interface FakeCredentialsOptions {
  baseUrl?: string | undefined;
  /** The saved profile; by default one signed in at `baseUrl` (no revocation endpoint). */
  profile?: Profile | undefined;
  envToken?: string;
  store?: CredentialStore;
  /** The other profiles config.json lists (`auth status` walks them). */
  profiles?: Record<string, Profile>;
  configDir?: string;
  /** The clock the token provider reads expiries against (default: fakeCtx's, from 0). */
  clock?: Clock;
}

/**
 * A resolved `Credentials` for the auth commands' `run`: a store the test gives (MemoryStore by
 * default), the profile "default", and a config whose read() lists `profiles`. Its token provider
 * refreshes on a network of its own (unit tests only); the command's other requests use `ctx.network()`.
 */
export function fakeCredentials(o: FakeCredentialsOptions = {}): Partial<Credentials> & { store(): CredentialStore } {
  const baseUrl = 'baseUrl' in o ? o.baseUrl : 'https://rsi.example';
  const profile =
    'profile' in o
      ? o.profile
      : baseUrl
        ? { baseUrl, authServer: { issuer: baseUrl, token_endpoint: `${baseUrl}/oauth/token` } }
        : undefined;
  const store = o.store ?? new MemoryStore();
  return {
    profileName: 'default',
    profile,
    baseUrl,
    configDir: o.configDir ?? '/nonexistent/rsi',
    envToken: o.envToken,
    source: o.envToken ? 'RSI_TOKEN' : profile ? 'keychain' : undefined,
    config: { file: '/nonexistent/rsi/config.json', read: async () => ({ version: 1, profiles: o.profiles ?? {} }) } as never,
    userAgent: 'rsi/test',
    store: () => store,
    key: () => ({ baseUrl: baseUrl ?? '', profile: 'default' }),
    requireBaseUrl: () => baseUrl ?? '',
    // The real provider over the test's store: a valid token is returned as stored, no refresh.
    tokenProvider: async () => {
      const url = `${baseUrl ?? ''}/api/v1`;
      if (o.envToken) {
        const token = o.envToken;
        return {
          source: 'RSI_TOKEN',
          url,
          getAccessToken: async () => token,
          refreshAfterUnauthorized: async () => undefined,
          tokens: async () => undefined,
          tokensToHandOver: async () => undefined,
        };
      }
      if (!profile?.authServer) throw new NotSignedInError('not signed in (profile default)');
      const provider = new StoredTokenProvider({
        store,
        key: { baseUrl: baseUrl ?? '', profile: 'default' },
        authServer: profile.authServer,
        configDir: o.configDir ?? '/nonexistent/rsi',
        // fakeCtx's clock starts at 0: tokens in these tests expire hours after it.
        clock: o.clock ?? fakeClock(0),
        oauth: { userAgent: 'rsi/test', network: new Network({ env: {}, timeoutMs: 120_000 }) },
        warn: () => undefined,
      });
      return {
        source: 'keychain',
        url,
        getAccessToken: (signal) => provider.getAccessToken(signal),
        refreshAfterUnauthorized: (rejected, signal) => provider.refreshAfterUnauthorized(rejected, signal),
        tokens: (signal) => provider.tokens(signal),
        tokensToHandOver: (signal) => provider.tokensToHandOver(signal),
      };
    },
  };
}

/** An MCP session with these tools; callTool answers through `answer` and is recorded. */
export function fakeMcp(
  tools: Tool[],
  answer: (name: string, args: Record<string, unknown>) => CallToolResult = () => ({ content: [] }),
): McpConnection & { calls: Array<{ name: string; args: Record<string, unknown> }>; closed: () => boolean } {
  const calls: Array<{ name: string; args: Record<string, unknown> }> = [];
  let closed = false;
  return {
    server: { name: 'fake', version: '0' },
    calls,
    closed: () => closed,
    listTools: async () => tools,
    callTool: async (name, args) => {
      calls.push({ name, args });
      return answer(name, args);
    },
    close: async () => void (closed = true),
  };
}
