/**
 * `rsi sandbox`: runs the local fake service until Ctrl-C / SIGTERM. The first stdout line is the
 * base URL, so scripts can read it; everything else goes to stderr.
 */
import { Command, Option } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

export interface SandboxCommandOptions {
  port: number;
  host: string;
  timeScale: number;
  tokenTtlSeconds: number;
  autoApprove: boolean;
  faults: string[];
  quiet: boolean;
  /** Milliseconds every response is delayed, like a network. */
  latencyMs: number;
  /** Set by --admin-secret or RSI_SANDBOX_ADMIN_SECRET; undefined: the sandbox makes a random one. */
  adminSecret: string | undefined;
}

const LOOPBACK = ['127.0.0.1', 'localhost', '::1'];

export function build(ctx: Context, runF: typeof run = run): Command {
  return new Command('sandbox')
    .description('run a local, spec-faithful fake of the service (OAuth server, API, setup page)')
    .option('--port <n>', 'port to listen on; 0 picks a free one', '0')
    .option('--host <host>', 'address to listen on (loopback unless you say otherwise)', '127.0.0.1')
    .option('--time-scale <x>', 'run scans and analyses this many times faster', '1')
    .option('--token-ttl <seconds>', 'access-token lifetime', '3600')
    .option('--auto-approve', 'approve sign-in requests without showing the consent page')
    .addOption(
      new Option(
        '--fault <name>',
        'inject a failure (repeatable): analyses-504, register-429, scan-error, slow, html-502, truncated-json, bad-schema, hang, reset, rate-limit, flaky-503, short-pages, wrong-total, sparse, hostile',
      )
        .argParser(collect)
        .default([]),
    )
    .option('--latency <ms>', 'delay every response this many milliseconds, like a network', '0')
    .option('--quiet', 'do not log requests on stderr')
    .option('--admin-secret <secret>', 'secret for the /__sandbox/* routes (default: $RSI_SANDBOX_ADMIN_SECRET, else random)')
    .addHelpText(
      'after',
      '\nThe first line on stdout is the base URL. Stop with Ctrl-C.\nSee docs/sandbox.md for the seed data and what each fault does.',
    )
    .action(async (raw: Record<string, unknown>) => {
      await runF(parseOptions(raw, ctx.env), ctx);
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function parseOptions(raw: Record<string, unknown>, env: Record<string, string | undefined> = {}): SandboxCommandOptions {
  const num = (flag: string, value: unknown, min: number, max: number, integer: boolean): number => {
    const n = Number(value);
    if (
      typeof value !== 'string' ||
      value.trim() === '' ||
      !Number.isFinite(n) ||
      n < min ||
      n > max ||
      (integer && !Number.isInteger(n))
    ) {
      throw new UsageError(`--${flag} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max} (got "${String(value)}")`);
    }
    return n;
  };
  const host = String(raw.host);
  if (!LOOPBACK.includes(host) && !/^[\w.:-]+$/.test(host)) throw new UsageError(`--host "${host}" is not a valid address`);
  const timeScale = num('time-scale', raw.timeScale, 0.001, 100000, false);
  if (timeScale <= 0) throw new UsageError('--time-scale must be greater than 0');
  const adminSecret = (raw.adminSecret as string | undefined) ?? (env.RSI_SANDBOX_ADMIN_SECRET || undefined);
  // It travels in a header: printable ASCII without spaces, and long enough not to be guessed.
  if (adminSecret !== undefined && !/^[\x21-\x7e]{16,200}$/.test(adminSecret)) {
    const from = raw.adminSecret !== undefined ? '--admin-secret' : 'RSI_SANDBOX_ADMIN_SECRET';
    throw new UsageError(`${from} must be 16 to 200 printable ASCII characters without spaces`);
  }
  return {
    port: num('port', raw.port, 0, 65535, true),
    host,
    timeScale,
    tokenTtlSeconds: num('token-ttl', raw.tokenTtl, 1, 86400, true),
    autoApprove: raw.autoApprove === true,
    faults: (raw.fault as string[] | undefined) ?? [],
    quiet: raw.quiet === true,
    latencyMs: num('latency', raw.latency, 0, 60000, true),
    adminSecret,
  };
}

export async function run(opts: SandboxCommandOptions, ctx: Context): Promise<void> {
  const { startSandbox, FAULTS } = await import('../../sandbox/server.js');
  const unknown = opts.faults.find((f) => !(FAULTS as readonly string[]).includes(f));
  if (unknown) throw new UsageError(`unknown fault "${unknown}"; known: ${FAULTS.join(', ')}`);
  const err = ctx.io.stderr;
  let sandbox: Awaited<ReturnType<typeof startSandbox>>;
  try {
    sandbox = await startSandbox({
      port: opts.port,
      host: opts.host,
      timeScale: opts.timeScale,
      tokenTtlSeconds: opts.tokenTtlSeconds,
      autoApprove: opts.autoApprove,
      faults: opts.faults,
      adminSecret: opts.adminSecret,
      latencyMs: opts.latencyMs,
      log: opts.quiet ? undefined : (line) => void err.write(`sandbox: ${line}\n`),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`port ${opts.port} is already in use`, { hint: 'use --port 0 to pick a free port' });
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UsageError(`cannot listen on ${opts.host}`);
    throw error;
  }
  await (await import('../../io/output.js')).printVerbatim(ctx.io, `${sandbox.url}\n`);
  if (!LOOPBACK.includes(opts.host)) err.write(`sandbox: warning: listening on ${opts.host}, reachable from other machines\n`);
  err.write(
    `sandbox: ready at ${sandbox.url} (API ${sandbox.url}/api/v1)${opts.autoApprove ? ', auto-approving sign-ins' : ''}` +
      `${opts.timeScale !== 1 ? `, clock ×${opts.timeScale}` : ''}${opts.latencyMs ? `, latency ${opts.latencyMs} ms` : ''}${opts.faults.length ? `, faults: ${opts.faults.join(', ')}` : ''}\n`,
  );
  err.write(`sandbox: sign in with: rsi login --base-url ${sandbox.url}\n`);
  // Scripts find a generated secret here; one the caller set is not echoed (they have it).
  err.write(
    opts.adminSecret === undefined
      ? `sandbox: admin routes (/__sandbox/*) need the header X-Sandbox-Secret: ${sandbox.adminSecret}\n`
      : 'sandbox: admin routes (/__sandbox/*) need the header X-Sandbox-Secret with the secret you set\n',
  );
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) return resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await sandbox.close();
  err.write('sandbox: stopped\n');
}
