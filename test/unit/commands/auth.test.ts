/**
 * login, logout, auth status, auth token: flags → options, and run with fake credentials (a
 * MemoryStore, no config on disk). login's browser flow (loopback receiver, authorization server)
 * needs real parts and is covered by test/journeys/auth-login.test.ts against the sandbox; here its run is
 * driven only up to the points that fail before any browser opens.
 */
import { describe, expect, it } from 'vitest';
import * as login from '../../../src/commands/login/login.js';
import * as logout from '../../../src/commands/logout/logout.js';
import * as status from '../../../src/commands/auth/status/status.js';
import * as token from '../../../src/commands/auth/token/token.js';
import * as adopt from '../../../src/commands/auth/adopt/adopt.js';
import { KeychainUnavailableError, NotSignedInError, UsageError } from '../../../src/errors.js';
import type { StoredTokens } from '../../../src/storage/credentials.js';
import { fakeCredentials, parseFlags } from '../../support/commands.js';
import { fakeCtx, fakeIo } from '../../support/fakes.js';
import { MemoryStore } from '../../support/memory-store.js';

const BASE = 'https://rsi.example';
const HOUR = 3_600_000;
const TOKENS: StoredTokens = {
  accessToken: 'at-123',
  refreshToken: 'rt-456',
  expiresAt: 2 * HOUR,
  obtainedAt: 0,
  scope: 'service:read projects:write',
  clientId: 'client-1',
};

async function signedIn(tokens: StoredTokens = TOKENS): Promise<MemoryStore> {
  const store = new MemoryStore();
  await store.save({ baseUrl: BASE, profile: 'default' }, tokens);
  return store;
}

describe('login: flags', () => {
  const base = {
    baseUrl: undefined,
    scopes: [],
    addScopes: [],
    noBrowser: false,
    port: undefined,
    insecureStorage: false,
    timeoutSeconds: 300,
  };
  it.each([
    [[], base],
    [
      ['--scope', 'service:read,projects:write', '--scope', 'analyses:run'],
      { ...base, scopes: ['service:read', 'projects:write', 'analyses:run'] },
    ],
    [['--add-scope', 'analyses:run'], { ...base, addScopes: ['analyses:run'] }],
    [['--no-browser', '--port', '8765', '--insecure-storage'], { ...base, noBrowser: true, port: 8765, insecureStorage: true }],
    [['--resource', 'mcp'], { ...base, resource: 'mcp' }],
  ])('%j → options', async (argv, expected) => {
    expect(await parseFlags(login.build, argv)).toEqual(expected);
  });

  it("the global --timeout (one bound for the whole command) is the sign-in's wait", async () => {
    const ctx = fakeCtx(fakeIo(false), { globals: { commandTimeoutMs: 60_000 } });
    expect((await parseFlags(login.build, [], ctx)).timeoutSeconds).toBe(60);
  });

  it('the global --base-url is carried into the options', async () => {
    const ctx = fakeCtx(fakeIo(false), { globals: { baseUrl: 'http://127.0.0.1:9' } });
    expect((await parseFlags(login.build, [], ctx)).baseUrl).toBe('http://127.0.0.1:9');
  });

  it.each([
    [['--scope', 'bad"scope'], /--scope "bad"scope" is not a valid scope name/],
    [['--add-scope', 'back\\slash'], /is not a valid scope name/],
    [['--port', '0'], /--port must be an integer from 1 to 65535/],
    [['--port', '70000'], /--port must be an integer from 1 to 65535/],
    [['--resource', 'web'], /--resource must be one of api, mcp/],
  ])('%j → UsageError', async (argv, message) => {
    const error = await parseFlags(login.build, argv).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });
});

describe('login: run (up to the browser)', () => {
  const opts = {
    baseUrl: undefined,
    scopes: [],
    addScopes: [],
    noBrowser: true,
    port: undefined,
    insecureStorage: false,
    timeoutSeconds: 5,
  };

  it('no base URL anywhere: a usage error with the flag to give, nothing stored', async () => {
    const io = fakeIo(false);
    const store = new MemoryStore();
    const ctx = fakeCtx(io, { credentials: fakeCredentials({ baseUrl: undefined, store }) });
    const error = await login.run(opts, ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).hint).toMatch(/--base-url/);
    expect(io.err()).toBe('');
  });

  it('a keychain that cannot be used fails before the sign-in starts, pointing at --insecure-storage', async () => {
    const io = fakeIo(false);
    const store = Object.assign(new MemoryStore(), {
      kind: 'keychain' as const,
      probe: async () => {
        throw new KeychainUnavailableError('cannot read the keychain: the keyring is locked');
      },
    });
    const ctx = fakeCtx(io, { credentials: fakeCredentials({ store }) });
    const error = (await login.run({ ...opts, baseUrl: BASE }, ctx).catch((e: unknown) => e)) as KeychainUnavailableError;
    expect(error).toBeInstanceOf(KeychainUnavailableError);
    expect(error.message).toBe('no usable OS keychain: the keyring is locked');
    // The credentials' exit code (3, "no credentials"), and the file store named.
    expect(error.exitCode).toBe(3);
    expect(error.hint).toMatch(/--insecure-storage.*RSI_CREDENTIAL_STORE=file/);
    // No URL was printed: the browser flow never began.
    expect(io.err()).toBe('');
  });
});

/** None of the three takes an argument or a flag of its own. */
async function takesNothing(build: typeof logout.build): Promise<void> {
  expect(await parseFlags(build, [])).toEqual({});
  await expect(parseFlags(build, ['x'])).rejects.toThrow(/too many arguments/);
  await expect(parseFlags(build, ['--json-ish'])).rejects.toThrow(/unknown option '--json-ish'/);
}
describe('logout: flags', () => {
  it('takes nothing', () => takesNothing(logout.build));
});
describe('auth status: flags', () => {
  it('takes --offline only', async () => {
    expect(await parseFlags(status.build, [])).toEqual({ offline: false });
    expect(await parseFlags(status.build, ['--offline'])).toEqual({ offline: true });
    await expect(parseFlags(status.build, ['x'])).rejects.toThrow(/too many arguments/);
  });
});
describe('auth token: flags', () => {
  it('takes --refresh only', async () => {
    expect(await parseFlags(token.build, [])).toEqual({ refresh: false });
    expect(await parseFlags(token.build, ['--refresh'])).toEqual({ refresh: true });
    await expect(parseFlags(token.build, ['x'])).rejects.toThrow(/too many arguments/);
  });
});

describe('auth adopt: flags', () => {
  it('takes nothing', () => takesNothing(adopt.build));
});

describe('auth adopt: run', () => {
  it('refuses a keychain sign-in, which no folder carries, and RSI_TOKEN', async () => {
    const ctx = fakeCtx(fakeIo(false), { credentials: fakeCredentials({ baseUrl: BASE, store: await signedIn() }) });
    await expect(adopt.run({}, ctx)).rejects.toThrow(/nothing to adopt/);
    const env = fakeCtx(fakeIo(false), { credentials: fakeCredentials({ baseUrl: BASE, envToken: 'tok-from-env' }) });
    await expect(adopt.run({}, env)).rejects.toThrow(/RSI_TOKEN is set/);
  });
});

describe('logout: run', () => {
  it('deletes the stored tokens and says so on stderr, nothing on stdout', async () => {
    const io = fakeIo(false);
    const store = await signedIn();
    await logout.run({}, fakeCtx(io, { credentials: fakeCredentials({ store }) }));
    expect(await store.load({ baseUrl: BASE, profile: 'default' })).toBeUndefined();
    expect(io.out()).toBe('');
    expect(io.err()).toBe(`✓ Signed out of ${BASE} (profile default)\n`);
  });

  it('also signs out of the MCP server, and reminds that RSI_TOKEN is still set', async () => {
    const io = fakeIo(false);
    const store = await signedIn();
    const { credentialKeyFor } = await import('../../../src/auth/resources.js');
    const mcpKey = credentialKeyFor({ baseUrl: BASE, profile: 'default' }, 'mcp');
    await store.save(mcpKey, TOKENS);
    await logout.run({}, fakeCtx(io, { credentials: fakeCredentials({ store, envToken: 'env-token' }) }));
    expect(await store.load(mcpKey)).toBeUndefined();
    expect(io.err()).toBe(
      `✓ Signed out of the MCP server of ${BASE}\n✓ Signed out of ${BASE} (profile default)\nnote: RSI_TOKEN is still set in your environment\n`,
    );
  });

  it('not signed in: nothing to do, exit 0', async () => {
    const io = fakeIo(false);
    await logout.run({}, fakeCtx(io, { credentials: fakeCredentials({ store: new MemoryStore() }) }));
    expect(io.err()).toBe(`Not signed in to ${BASE} (profile default); nothing to do\n`);
  });

  it('a revocation that fails is a warning; the local tokens go anyway', async () => {
    const io = fakeIo(false);
    const store = await signedIn();
    // Port 1 on loopback refuses the connection at once: the revocation request fails.
    const profile = {
      baseUrl: BASE,
      authServer: { issuer: BASE, token_endpoint: `${BASE}/t`, revocation_endpoint: 'http://127.0.0.1:1/revoke' },
    };
    await logout.run({}, fakeCtx(io, { credentials: fakeCredentials({ store, profile }) }));
    expect(io.err()).toMatch(/^warning: could not revoke the session at the service \(.+\); deleting the local credentials anyway\n/);
    expect(io.err()).toContain(`✓ Signed out of ${BASE}`);
    expect(await store.load({ baseUrl: BASE, profile: 'default' })).toBeUndefined();
  });
});

describe('auth status: run', () => {
  it('json: the profile in use with its scopes and expiry, and every profile', async () => {
    const io = fakeIo(false);
    const credentials = fakeCredentials({ store: await signedIn(), profiles: { default: { baseUrl: BASE } } });
    await status.run({ offline: true }, fakeCtx(io, { format: 'json', credentials }));
    expect(JSON.parse(io.out())).toEqual({
      profile: 'default',
      baseUrl: BASE,
      signedIn: true,
      source: 'keychain',
      scopes: ['service:read', 'projects:write'],
      expiresAt: new Date(2 * HOUR).toISOString(),
      storedLoginHidden: false,
      clientId: 'client-1',
      // --offline: nothing was asked of the service.
      checked: false,
      problem: null,
      // No default project set (rsi config set project, RSI_PROJECT).
      project: null,
      profiles: [expect.objectContaining({ profile: 'default', signedIn: true })],
      // The MCP sign-in (rsi login --resource mcp) beside the API's: none here.
      mcp: { resource: `${BASE}/mcp`, signedIn: false, source: null, scopes: [], expiresAt: null, checked: false, problem: null },
    });
    expect(io.err()).toBe('');
  });

  it('human: key/value lines with the time left; never the token', async () => {
    const io = fakeIo(true);
    await status.run({ offline: true }, fakeCtx(io, { format: 'table', credentials: fakeCredentials({ store: await signedIn() }) }));
    expect(io.out()).toMatch(/profile\s+default\n/);
    expect(io.out()).toMatch(/token from\s+OS keychain\n/);
    expect(io.out()).toMatch(/scopes\s+service:read projects:write\n/);
    expect(io.out()).toContain('(in 120 min; refreshed automatically)');
    expect(io.out() + io.err()).not.toContain('at-123');
  });

  it('RSI_TOKEN over a stored login: the source says so and a warning goes to stderr', async () => {
    const io = fakeIo(false);
    await status.run(
      { offline: true },
      fakeCtx(io, { format: 'tsv', credentials: fakeCredentials({ store: await signedIn(), envToken: 'env-tok' }) }),
    );
    expect(io.out()).toMatch(/token from\s+RSI_TOKEN \(environment; never stored or refreshed\)/);
    expect(io.err()).toBe('warning: RSI_TOKEN is set, so the login stored for this profile is not being used\n');
  });

  it('not signed in: NotSignedInError with the login command as the hint', async () => {
    const io = fakeIo(false);
    const error = (await status
      .run({ offline: true }, fakeCtx(io, { credentials: fakeCredentials() }))
      .catch((e: unknown) => e)) as NotSignedInError;
    expect(error).toBeInstanceOf(NotSignedInError);
    expect(error.hint).toBe(`run \`rsi login --base-url ${BASE}\``);
    expect(io.out()).toBe('');
  });
});

describe('auth token: run', () => {
  it('prints the stored access token (still valid: no refresh) and nothing else', async () => {
    const io = fakeIo(false);
    await token.run({}, fakeCtx(io, { credentials: fakeCredentials({ store: await signedIn() }) }));
    expect(io.out()).toBe('at-123\n');
    expect(io.err()).toBe('');
  });

  it('prints RSI_TOKEN when it is set, in any format', async () => {
    const io = fakeIo(false);
    await token.run({}, fakeCtx(io, { format: 'json', credentials: fakeCredentials({ envToken: 'env-tok' }) }));
    expect(io.out()).toBe('env-tok\n');
  });

  it('not signed in: an error and an empty stdout', async () => {
    const io = fakeIo(false);
    await expect(token.run({}, fakeCtx(io, { credentials: fakeCredentials() }))).rejects.toThrow(NotSignedInError);
    expect(io.out()).toBe('');
  });
});

describe('auth status at an 80-column terminal', () => {
  it('a long profile line continues under the base URL, for the current profile and the others alike', async () => {
    const io = fakeIo({ tty: true, columns: 80 });
    const store = await signedIn();
    await store.save({ baseUrl: BASE, profile: 'work-long-name' }, TOKENS);
    const profiles = { default: { baseUrl: BASE }, 'work-long-name': { baseUrl: BASE } };
    await status.run({ offline: true }, fakeCtx(io, { format: 'table', credentials: fakeCredentials({ store, profiles }) }));
    const lines = io.out().split('\n');
    const at = lines.indexOf('profiles:');
    const block = lines.slice(at + 1).filter((l) => l !== '');
    expect(block.length).toBeGreaterThan(2);
    for (const line of block) {
      expect(line.length, line).toBeLessThanOrEqual(80);
      // A profile line starts with its mark; a continuation under the base URL column.
      expect(line, line).toMatch(/^[* ] (?:default|work-long-name) +(?:https:|\(no base URL\))|^ {18}\S/);
    }
  });
});
