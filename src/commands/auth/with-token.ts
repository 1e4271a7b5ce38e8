/**
 * `rsi login --with-token`: a refresh token on stdin (gh's habit) becomes this machine's sign-in
 * (src/auth/with-token.ts); and what `rsi auth token --refresh` prints for it.
 */
import type { Context } from '../../context.js';
import { fchmodSync, fstatSync } from 'node:fs';
import { NotSignedInError, UsageError, ioErrorFrom } from '../../errors.js';
import type { Credentials } from '../../auth/credentials.js';

export async function loginWithToken(
  ctx: Context,
  opts: { baseUrl: string; clientId?: string | undefined; timeoutSeconds: number },
  store: ReturnType<Credentials['store']>,
  creds: Credentials,
): Promise<void> {
  if (ctx.io.stdinIsTTY) {
    throw new UsageError('--with-token reads the token from stdin: pipe it in', {
      hint: 'rsi login --with-token < token.txt   (the line `rsi auth token --refresh` printed)',
    });
  }
  const { decodeHandOver, signInWithRefreshToken } = await import('../../auth/with-token.js');
  // --timeout bounds the wait for stdin and the discovery; not the refresh itself, whose answer
  // is the only copy of the sign-in once the service has it (the per-request --http-timeout does).
  const deadline = AbortSignal.timeout(opts.timeoutSeconds * 1000);
  const signal = AbortSignal.any([ctx.signal, deadline]);
  const timedOut = () =>
    new NotSignedInError(`timed out after ${opts.timeoutSeconds} s waiting for the hand-over line on stdin; nothing was stored`, {
      hint: 'pipe the line `rsi auth token --refresh` printed, from a file or a command that ends: `rsi login --with-token < handover.txt`',
    });
  const text = await readAll(ctx.io.stdin, signal, () => (deadline.aborted ? timedOut() : ctx.signal.reason));
  const network = await ctx.network();
  // The line and the token in it are the run's secrets: no message repeats them.
  network.secrets.learn(text.trim());
  const handOver = decodeHandOver(text, opts.clientId);
  network.secrets.learn(handOver.refreshToken);
  let result: Awaited<ReturnType<typeof signInWithRefreshToken>>;
  try {
    result = await signInWithRefreshToken({
      baseUrl: opts.baseUrl,
      profile: ctx.globals().profile,
      handOver,
      store,
      config: creds.config,
      oauth: { userAgent: creds.userAgent, network },
      clock: ctx.clock,
      signal,
    });
  } catch (error) {
    if (deadline.aborted && !ctx.signal.aborted) throw timedOut();
    throw error;
  }
  const where = store.kind === 'file' ? `the file ${(store as { file?: string }).file}` : 'the OS keychain';
  ctx.io.stderr.write(`✓ Signed in to ${opts.baseUrl} with a refresh token (profile ${ctx.globals().profile}; tokens in ${where})\n`);
  ctx.io.stderr.write(`Scopes: ${result.scope || '(none)'}\n`);
  ctx.io.stderr.write(
    'The line you piped in is now spent (a line works once; used again anywhere, the service may sign out every copy): this machine holds the sign-in, and rotates it as it refreshes.\n',
  );
}

/**
 * At most 64 KiB: a refresh token line is far shorter, and a wrong pipe must not fill memory. Ends
 * with `failure()` when `signal` fires first (the deadline, Ctrl-C).
 */
async function readAll(stdin: NodeJS.ReadableStream, signal: AbortSignal, failure: () => unknown): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let text = '';
    const done = (error?: unknown): void => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.off('error', done);
      signal.removeEventListener('abort', onAbort);
      stdin.pause();
      if (error === undefined) resolve(text);
      else reject(error);
    };
    const onData = (chunk: string | Buffer): void => {
      text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      if (text.length > 64 * 1024) done(new UsageError('--with-token: stdin holds more than one token (over 64 KiB)'));
    };
    const onEnd = (): void => done();
    const onAbort = (): void => done(failure());
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.on('error', done);
    stdin.resume();
  });
}

/**
 * `rsi auth token --refresh`: this profile's refresh token, with its client, as one line for
 * `rsi login --with-token` on another machine. Refresh tokens rotate, so the sign-in moves rather
 * than being copied: the token is taken out of this machine's store once the line is written and
 * flushed (a failed write, `> /dev/full`, keeps the sign-in here), and the profile keeps its
 * access token until it expires, then needs a sign-in of its own.
 */
export async function exportRefreshToken(ctx: Context): Promise<void> {
  const creds = await ctx.credentials();
  if (creds.envToken) throw new UsageError('RSI_TOKEN is set: it is an access token, with no refresh token to hand over; unset it');
  const provider = await creds.tokenProvider('api');
  // A copy's refresh token is the original's too: handing it over would sign the original out.
  const tokens = await provider.tokensToHandOver(ctx.signal);
  if (!tokens?.refreshToken) throw new UsageError('this sign-in has no refresh token to hand over');
  const { encodeHandOver } = await import('../../auth/with-token.js');
  const line = encodeHandOver(tokens);
  const given = tokens.refreshToken;
  privateOutput(ctx);
  try {
    await new Promise<void>((resolve, reject) => ctx.io.stdout.write(`${line}\n`, (error) => (error ? reject(error) : resolve())));
  } catch (error) {
    ctx.io.stderr.write(
      `Nothing was handed over: the line could not be written, so profile ${creds.profileName} keeps its sign-in here.\n`,
    );
    throw ioErrorFrom(error, 'the hand-over line (stdout)') ?? error;
  }
  // Compare-and-swap: only the token printed is removed (a concurrent rotation keeps its own).
  await creds.store().update(creds.key(), (now) => (now && now.refreshToken === given ? { ...now, refreshToken: undefined } : undefined));
  ctx.io.stderr.write(
    `The refresh token of profile ${creds.profileName} was handed over and removed here: pipe the line above to \`rsi login --with-token\` on the machine that will use it, once (a line works once; used twice, the service may sign out every copy). This profile works until its access token expires.\n`,
  );
}

/**
 * A secret is about to go to stdout: when that is a file of the user's (`> handover.txt`), it is
 * made readable by the user alone first, whatever the umask made it.
 */
function privateOutput(ctx: Context): void {
  const fd = ctx.io.fds?.[0];
  if (fd === undefined || process.platform === 'win32') return;
  try {
    const info = fstatSync(fd);
    if (info.isFile() && info.uid === process.getuid?.() && (info.mode & 0o077) !== 0) fchmodSync(fd, 0o600);
  } catch {
    // Not a file rsi may change (a pipe, another user's): nothing to tighten.
  }
}
