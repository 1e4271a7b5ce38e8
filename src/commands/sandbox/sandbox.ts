/**
 * `rsi sandbox`: runs the local fake service until Ctrl-C / SIGTERM. The first stdout line is the
 * base URL, so scripts can read it; everything else goes to stderr.
 */
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { given, list, matching, number, on, type OptionSpecs, type OptionsOf, parseOptions, withOptions } from '../shared/options.js';
import { printVerbatim } from '../../io/output.js';
import { type CommandDeclaration, commandFor } from '../declaration.js';

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
  /** --seed: created projects' and runs' ids derived from it (the same data every run); undefined: random. */
  seed: string | undefined;
  /** Set by --admin-secret or RSI_SANDBOX_ADMIN_SECRET; undefined: the sandbox makes a random one. */
  adminSecret: string | undefined;
  /** --tls: serve HTTPS (with a throwaway CA unless certFile/keyFile are given). */
  tls: boolean;
  certFile: string | undefined;
  keyFile: string | undefined;
  /** --public-host: the name clients use, in the base URL, the certificate and the Host check. */
  publicHost: string | undefined;
}

const LOOPBACK = ['127.0.0.1', 'localhost', '::1'];

const TOGETHER = '--tls-cert and --tls-key go together';

export const command: CommandDeclaration = {
  path: 'sandbox',
  // A server runs until it is stopped: RSI_TIMEOUT, exported for scripts, must not end it.
  ownTimeout: true,
  description: 'run a local, spec-faithful fake of the service (OAuth server, API, setup page)',
  examples: ['rsi sandbox --port 8765 --auto-approve --quiet &', 'rsi sandbox --time-scale 60 --fault analyses-504'],
};

/** The options, as data: flags, help, parsers, defaults and rules (src/commands/shared/options.ts). */
const OPTIONS = {
  port: {
    flags: '--port <n>',
    description: 'port to listen on; 0 picks a free one',
    parse: number(0, 65535, { integer: true }),
    default: '0',
  },
  host: {
    flags: '--host <host>',
    description: 'address to listen on (loopback unless you say otherwise)',
    parse: matching(/^[\w.:-]+$/, (host) => `--host "${host}" is not a valid address`),
    default: '127.0.0.1',
  },
  timeScale: {
    flags: '--time-scale <x>',
    description: 'run scans and analyses this many times faster',
    parse: number(0.001, 100000),
    default: '1',
  },
  tokenTtl: {
    flags: '--token-ttl <seconds>',
    description: 'access-token lifetime',
    parse: number(1, 86400, { integer: true }),
    default: '3600',
  },
  autoApprove: { flags: '--auto-approve', description: 'approve sign-in requests without showing the consent page', parse: on() },
  fault: {
    flags: '--fault <name>',
    description:
      'inject a failure (repeatable): analyses-504, register-429, scan-error, slow, html-502, truncated-json, bad-schema, hang, reset, rate-limit, flaky-503, short-pages, wrong-total, sparse, hostile',
    parse: list(),
    default: [],
  },
  latency: {
    flags: '--latency <ms>',
    description: 'delay every response this many milliseconds, like a network',
    parse: number(0, 60000, { integer: true }),
    default: '0',
  },
  seed: {
    flags: '--seed <text>',
    description:
      'derive the ids of created projects and runs from this text: the same commands give the same signals and outcomes (default: random ids)',
    parse: given(),
  },
  quiet: { flags: '--quiet', description: 'do not log requests on stderr', parse: on() },
  adminSecret: {
    flags: '--admin-secret <secret>',
    description: 'secret for the /__sandbox/* routes (default: $RSI_SANDBOX_ADMIN_SECRET, else random)',
    parse: given(),
  },
  tls: {
    flags: '--tls',
    description: 'serve HTTPS with a throwaway CA made at start; its PEM path is the second stdout line',
    parse: on(),
  },
  tlsCert: {
    flags: '--tls-cert <file>',
    description: 'with --tls: your server certificate chain (PEM) instead of the throwaway one',
    parse: given(),
    rules: [
      { needs: 'tlsKey', message: TOGETHER },
      { needs: 'tls', message: '--tls-cert and --tls-key need --tls' },
    ],
  },
  tlsKey: {
    flags: '--tls-key <file>',
    description: "with --tls: that certificate's private key (PEM)",
    parse: given(),
    rules: [{ needs: 'tlsCert', message: TOGETHER }],
  },
  publicHost: {
    flags: '--public-host <name>',
    description: 'host name clients use (one a proxy or /etc/hosts resolves here): in the base URL and certificate',
    // A DNS name (or an address): it is put in URLs, a certificate and compared with Host.
    parse: matching(
      /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i,
      (name) => `--public-host "${name}" is not a host name`,
    ),
  },
} satisfies OptionSpecs;

export function build(ctx: Context, runF: typeof run = run): Command {
  return withOptions(commandFor(command), OPTIONS)
    .addHelpText(
      'after',
      '\nThe first line on stdout is the base URL; with --tls the second is the CA certificate (PEM) to\ntrust: NODE_EXTRA_CA_CERTS=<that path>. Stop with Ctrl-C.\nSee docs/sandbox.md for the seed data and what each fault does.',
    )
    .action(async (flags: Record<string, unknown>) => {
      await runF(sandboxOptions(parseOptions(OPTIONS, flags), ctx.env), ctx);
    });
}

/** The typed flags, and the admin secret from RSI_SANDBOX_ADMIN_SECRET when --admin-secret is not given. */
export function sandboxOptions(flags: OptionsOf<typeof OPTIONS>, env: Record<string, string | undefined> = {}): SandboxCommandOptions {
  const adminSecret = flags.adminSecret ?? (env.RSI_SANDBOX_ADMIN_SECRET || undefined);
  // It travels in a header: printable ASCII without spaces, and long enough not to be guessed.
  if (adminSecret !== undefined && !/^[\x21-\x7e]{16,200}$/.test(adminSecret)) {
    const from = flags.adminSecret !== undefined ? '--admin-secret' : 'RSI_SANDBOX_ADMIN_SECRET';
    throw new UsageError(`${from} must be 16 to 200 printable ASCII characters without spaces`);
  }
  return {
    tls: flags.tls,
    certFile: flags.tlsCert,
    keyFile: flags.tlsKey,
    publicHost: flags.publicHost?.toLowerCase(),
    port: flags.port,
    host: flags.host,
    timeScale: flags.timeScale,
    tokenTtlSeconds: flags.tokenTtl,
    autoApprove: flags.autoApprove,
    faults: flags.fault,
    quiet: flags.quiet,
    latencyMs: flags.latency,
    adminSecret,
    seed: flags.seed,
  };
}

export async function run(opts: SandboxCommandOptions, ctx: Context): Promise<void> {
  const [{ startSandbox }, { FAULTS }] = await Promise.all([import('../../sandbox/server.js'), import('../../sandbox/faults.js')]);
  const unknown = opts.faults.find((f) => !(FAULTS as readonly string[]).includes(f));
  if (unknown) throw new UsageError(`unknown fault "${unknown}"; known: ${FAULTS.join(', ')}`);
  const tls = opts.tls ? await loadTls(opts) : undefined;
  try {
    await serve(opts, ctx, startSandbox, tls);
  } finally {
    // The throwaway CA lives as long as the sandbox: removed on Ctrl-C, SIGTERM or a failed start.
    tls?.remove();
  }
}

async function serve(
  opts: SandboxCommandOptions,
  ctx: Context,
  startSandbox: typeof import('../../sandbox/server.js').startSandbox,
  tls: LoadedTls | undefined,
): Promise<void> {
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
      ...(opts.seed === undefined ? {} : { seed: opts.seed }),
      tls,
      publicHost: opts.publicHost,
      log: opts.quiet ? undefined : (line) => void err.write(`sandbox: ${line}\n`),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`port ${opts.port} is already in use`, { hint: 'use --port 0 to pick a free port' });
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UsageError(`cannot listen on ${opts.host}`);
    throw error;
  }
  await printVerbatim(ctx.io, `${sandbox.url}\n${tls ? `${tls.caFile}\n` : ''}`);
  if (tls) err.write(`sandbox: trust its certificate with NODE_EXTRA_CA_CERTS=${tls.caFile}\n`);
  if (!LOOPBACK.includes(opts.host)) err.write(`sandbox: warning: listening on ${opts.host}, reachable from other machines\n`);
  err.write(
    `sandbox: ready at ${sandbox.url} (API ${sandbox.url}/api/v1)${opts.autoApprove ? ', auto-approving sign-ins' : ''}` +
      `${opts.timeScale !== 1 ? `, clock ×${opts.timeScale}` : ''}${opts.latencyMs ? `, latency ${opts.latencyMs} ms` : ''}${opts.seed !== undefined ? `, seed ${JSON.stringify(opts.seed)}` : ''}${opts.faults.length ? `, faults: ${opts.faults.join(', ')}` : ''}\n`,
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

interface LoadedTls {
  key: string;
  cert: string;
  /** What the second stdout line names: the throwaway CA's PEM, or the --tls-cert file. */
  caFile: string;
  /** Deletes the throwaway CA's folder (nothing for a --tls-cert the user owns). */
  remove(): void;
}

async function loadTls(opts: SandboxCommandOptions): Promise<LoadedTls> {
  const fs = await import('node:fs');
  if (opts.certFile !== undefined && opts.keyFile !== undefined) {
    const read = (flag: string, file: string) => {
      try {
        return fs.readFileSync(file, 'utf8');
      } catch (error) {
        throw new UsageError(`cannot read ${flag} ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
      }
    };
    const { resolve } = await import('node:path');
    return { cert: read('--tls-cert', opts.certFile), key: read('--tls-key', opts.keyFile), caFile: resolve(opts.certFile), remove() {} };
  }
  const [{ makeSandboxTls }, { tmpdir }, { join }] = await Promise.all([
    import('../../sandbox/x509.js'),
    import('node:os'),
    import('node:path'),
  ]);
  const names = ['127.0.0.1', 'localhost', '::1', ...(opts.host && !LOOPBACK.includes(opts.host) ? [opts.host] : [])];
  if (opts.publicHost) names.push(opts.publicHost);
  const made = makeSandboxTls(names);
  // A private folder (0700, mkdtemp): other users cannot swap the CA a test is told to trust.
  const dir = fs.mkdtempSync(join(tmpdir(), 'rsi-sandbox-ca-'));
  const caFile = join(dir, 'ca.pem');
  fs.writeFileSync(caFile, made.caCert, { mode: 0o600 });
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { key: made.key, cert: made.cert, caFile, remove };
}
