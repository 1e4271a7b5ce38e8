/**
 * `rsi login --with-token`: a refresh token on stdin (gh's habit) becomes this machine's sign-in
 * (src/auth/with-token.ts); and what `rsi auth token --refresh` prints for it.
 */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Credentials } from '../../auth/credentials.js';

export async function loginWithToken(
  ctx: Context,
  opts: { baseUrl: string; clientId?: string | undefined },
  store: ReturnType<Credentials['store']>,
  creds: Credentials,
): Promise<void> {
  if (ctx.io.stdinIsTTY) {
    throw new UsageError('--with-token reads the token from stdin: pipe it in', {
      hint: 'rsi login --with-token < token.txt   (the line `rsi auth token --refresh` printed)',
    });
  }
  const { decodeHandOver, signInWithRefreshToken } = await import('../../auth/with-token.js');
  const text = await readAll(ctx.io.stdin);
  const handOver = decodeHandOver(text, opts.clientId);
  const result = await signInWithRefreshToken({
    baseUrl: opts.baseUrl,
    profile: ctx.globals().profile,
    handOver,
    store,
    config: creds.config,
    oauth: { userAgent: creds.userAgent, network: await ctx.network() },
    clock: ctx.clock,
  });
  const where = store.kind === 'file' ? `the file ${(store as { file?: string }).file}` : 'the OS keychain';
  ctx.io.stderr.write(`✓ Signed in to ${opts.baseUrl} with a refresh token (profile ${ctx.globals().profile}; tokens in ${where})\n`);
  ctx.io.stderr.write(`Scopes: ${result.scope || '(none)'}\n`);
  ctx.io.stderr.write('The token you piped in is now spent: this machine holds the sign-in, and rotates it as it refreshes.\n');
}

/** At most 64 KiB: a refresh token line is far shorter, and a wrong pipe must not fill memory. */
async function readAll(stdin: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stdin) {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    if (text.length > 64 * 1024) throw new UsageError('--with-token: stdin holds more than one token (over 64 KiB)');
  }
  return text;
}

/**
 * `rsi auth token --refresh`: this profile's refresh token, with its client, as one line for
 * `rsi login --with-token` on another machine. Refresh tokens rotate, so the sign-in moves rather
 * than being copied: the token is taken out of this machine's store as it is printed (this
 * profile keeps its access token until it expires, then needs `rsi login`).
 */
export async function exportRefreshToken(ctx: Context): Promise<void> {
  const creds = await ctx.credentials();
  if (creds.envToken) throw new UsageError('RSI_TOKEN is set: it is an access token, with no refresh token to hand over; unset it');
  const provider = await creds.tokenProvider('api');
  const tokens = await provider.tokens(ctx.signal);
  if (!tokens?.refreshToken) throw new UsageError('this sign-in has no refresh token to hand over');
  const { encodeHandOver } = await import('../../auth/with-token.js');
  const line = encodeHandOver(tokens);
  const given = tokens.refreshToken;
  // Compare-and-swap: only the token printed is removed (a concurrent rotation keeps its own).
  await creds.store().update(creds.key(), (now) => (now && now.refreshToken === given ? { ...now, refreshToken: undefined } : undefined));
  ctx.io.stdout.write(`${line}\n`);
  ctx.io.stderr.write(
    `The refresh token of profile ${creds.profileName} was handed over and removed here: pipe the line above to \`rsi login --with-token\` on the machine that will use it. This profile works until its access token expires, then needs \`rsi login\`.\n`,
  );
}
