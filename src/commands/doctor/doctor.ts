import * as os from 'node:os';
import type { Command } from 'commander';
import type { Context } from '../../context.js';
import type { Credentials } from '../../auth/credentials.js';
import { CliError, ConfigError, ServiceUnavailableError } from '../../errors.js';
import { printChecklist } from '../../io/output.js';
import { printReply } from '../../io/replies.js';
import { MIN_NODE, NODE_ENGINES, nodeSupported, PACKAGE_NAME } from '../../release.js';
import { type CommandDeclaration, commandFor } from '../declaration.js';

export interface Check {
  name: string;
  ok: boolean;
  /** Skipped checks (nothing to test) count as ok. */
  skipped?: boolean;
  detail: string;
  hint?: string;
}

/** `rsi doctor` takes no flags of its own. */
export type DoctorOptions = Record<string, never>;

export const command: CommandDeclaration = {
  path: 'doctor',
  description: 'check what can go wrong before it does: service, discovery, PKCE, keychain, loopback port, clock, registration',
  examples: ['rsi doctor', "rsi doctor --json | jq '.[] | select(.ok == false)'"],
};

export function build(ctx: Context, runF: typeof run = run): Command {
  return commandFor(command).action(async () => runF({}, ctx));
}

class DoctorFailedError extends CliError {
  override readonly code = 'doctor_failed';
}

const MAX_SKEW_MS = 60_000;

export async function run(_opts: DoctorOptions, ctx: Context): Promise<void> {
  const checks = await runChecks(ctx);
  await printReply(ctx.output(), checks, () =>
    printChecklist(
      ctx.io,
      checks.map((c) => ({ state: c.skipped ? 'skipped' : c.ok ? 'ok' : 'failed', text: `${c.name}: ${c.detail}`, hint: c.hint })),
    ),
  );
  const failed = checks.filter((c) => !c.ok);
  if (failed.length)
    throw new DoctorFailedError(`${failed.length} of ${checks.length} checks failed: ${failed.map((c) => c.name).join(', ')}`);
}

export async function runChecks(ctx: Context): Promise<Check[]> {
  const [{ discoverAuthorizationServer }, { registrationAccepted }, { startLoopbackReceiver }] = await Promise.all([
    import('../../auth/oauth.js'),
    import('../../auth/registration.js'),
    import('../../auth/loopback.js'),
  ]);
  const globals = ctx.globals();
  const checks: Check[] = [];
  const add = (c: Check): void =>
    void checks.push(c.ok ? { name: c.name, ok: true, ...(c.skipped ? { skipped: true } : {}), detail: c.detail } : c);

  // What a bug report needs first: rsi's version and how it was installed, Node's, the platform.
  for (const fact of await aboutThisRsi(ctx.version)) add(fact);

  // Like ssh: a config folder or file other users could change is reported with its fix.
  const { cacheFolderIssue, configFolderIssues } = await import('../../auth/disk-trust.js');
  const trust = await configFolderIssues(ctx.env).catch((error: Error) => ({ dir: '', issues: [], error }));
  // The cache folder (the update check's state) by the same rules: it may sit in a shared place.
  const cache = await cacheFolderIssue(ctx.env).catch(() => undefined);
  if (cache?.issue)
    add({ name: 'file permissions', ok: false, detail: `${cache.issue.path} ${cache.issue.problem}`, hint: cache.issue.fix });
  for (const issue of trust.issues) add({ name: 'file permissions', ok: false, detail: `${issue.path} ${issue.problem}`, hint: issue.fix });
  if ('error' in trust) add({ name: 'file permissions', ok: false, detail: trust.error.message });
  else if (!trust.issues.length) add({ name: 'file permissions', ok: true, detail: `only you can change ${trust.dir}` });

  let creds: Credentials | undefined;
  try {
    creds = await ctx.credentials();
    add({
      name: 'config',
      ok: true,
      detail: `${creds.config.file}${creds.profile ? ` (profile ${globals.profile})` : ' (no profile yet)'}`,
    });
  } catch (error) {
    if (error instanceof ConfigError) add({ name: 'config', ok: false, detail: (error as Error).message, hint: (error as CliError).hint });
    else
      add({ name: 'base URL', ok: false, detail: (error as Error).message, hint: 'use https://, or http:// only for 127.0.0.1/localhost' });
  }
  const profile = creds?.profile;
  const baseUrl = creds?.baseUrl;
  // The same network as every other request: proxy, deadline, trace.
  const network = await ctx.network();
  const oauth = { userAgent: creds?.userAgent ?? `rsi/${ctx.version}`, network };
  if (!baseUrl && !checks.some((c) => c.name === 'base URL')) {
    add({ name: 'base URL', ok: false, detail: 'none configured', hint: 'run `rsi login --base-url <url>` or set RSI_BASE_URL' });
  }

  let as: Awaited<ReturnType<typeof discoverAuthorizationServer>> | undefined;
  if (baseUrl) {
    add({ name: 'base URL', ok: true, detail: baseUrl });
    const started = ctx.clock.now();
    const probeUrl = new URL(`${baseUrl}/.well-known/oauth-authorization-server`);
    const decision = network.proxyDecision(probeUrl);
    const proxy = decision.proxy;
    const invalid = decision.proxy === undefined && decision.why === 'invalid' ? decision.error : undefined;
    add({
      name: 'proxy',
      ok: !invalid,
      ...(proxy || invalid ? {} : { skipped: true }),
      detail:
        decision.proxy !== undefined
          ? `${decision.proxy} (from ${decision.source})`
          : decision.why === 'invalid'
            ? decision.error.message
            : decision.why === 'unset'
              ? `none (${probeUrl.protocol === 'https:' ? 'HTTPS_PROXY' : 'http_proxy'}, ALL_PROXY not set${network.httpOnlyNoteFor(probeUrl)})`
              : `none for ${probeUrl.host} (${decision.why === 'loopback' ? 'loopback is never proxied' : 'NO_PROXY'})`,
      ...(invalid?.hint ? { hint: invalid.hint } : {}),
    });
    const via = proxy ? ` through the proxy ${proxy}` : ' directly';
    try {
      const res = await network.fetch(probeUrl, { headers: { 'user-agent': creds!.userAgent } });
      const date = res.headers.get('date');
      add({
        name: 'service reachable',
        ok: res.status < 500,
        detail: `${res.status} in ${Math.round(ctx.clock.now() - started)} ms${via}`,
        hint: proxy
          ? 'the service or the proxy answered with a server error; try later, or check the proxy'
          : 'the service answered with a server error; try later',
      });
      if (date) {
        const skew = Date.parse(date) - (started + ctx.clock.now()) / 2;
        add({
          name: 'clock skew',
          ok: Math.abs(skew) < MAX_SKEW_MS,
          detail: `${Math.round(skew / 1000)} s against the server's Date header`,
          hint: 'set your clock (NTP): token expiry is computed locally',
        });
      } else add({ name: 'clock skew', ok: true, skipped: true, detail: 'the server sent no Date header' });
    } catch (error) {
      add({
        name: 'service reachable',
        ok: false,
        detail: `not reached${via}: ${(error as Error).message}`,
        hint: hintOf(error, 'check the URL, your network, proxy settings (HTTPS_PROXY, NO_PROXY) and VPN'),
      });
    }
    try {
      as = await discoverAuthorizationServer(baseUrl, oauth);
      add({ name: 'OAuth discovery', ok: true, detail: `issuer ${as.issuer}` });
      const s256 = as.code_challenge_methods_supported?.includes('S256') === true;
      add({
        name: 'PKCE S256',
        ok: s256,
        detail: s256 ? 'advertised' : 'not advertised',
        hint: 'the service must support PKCE S256; rsi will not sign in without it',
      });
    } catch (error) {
      add({
        name: 'OAuth discovery',
        ok: false,
        detail: (error as Error).message,
        // Discovery that arrived but is unusable is the address's fault, not the network's.
        hint: hintOf(
          error,
          error instanceof ServiceUnavailableError
            ? 'is the service running? check --base-url and your network'
            : "check --base-url: it must be the service's own address, which serves its OAuth metadata",
        ),
      });
    }
  }

  if (creds?.envToken) {
    add({ name: 'credentials', ok: true, detail: 'RSI_TOKEN is set: it is used as is, and hides any stored login' });
  } else if (creds) {
    try {
      const store = creds.store();
      await store.probe({ baseUrl: baseUrl ?? 'probe', profile: globals.profile });
      const stored = baseUrl ? await store.load({ baseUrl, profile: globals.profile }) : undefined;
      add({
        name: store.kind === 'keychain' ? 'keychain' : 'credentials file',
        ok: true,
        detail: `${store.kind === 'keychain' ? 'reachable and unlocked' : 'readable'}; ${stored ? `signed in, access token ${stored.expiresAt > ctx.clock.now() ? 'valid' : 'expired (will refresh)'}` : 'not signed in'}`,
      });
    } catch (error) {
      add({ name: 'keychain', ok: false, detail: (error as Error).message, hint: hintOf(error) });
    }
  }

  try {
    const port = profile?.client ? Number(new URL(profile.client.redirectUri).port) : 0;
    const receiver = await startLoopbackReceiver(port).catch(() => startLoopbackReceiver(0));
    add({
      name: 'loopback port',
      ok: true,
      detail: `127.0.0.1:${receiver.port} can be bound${port && receiver.port !== port ? ` (registered port ${port} is busy: login will register a new one)` : ''}`,
    });
    await receiver.close();
  } catch (error) {
    add({
      name: 'loopback port',
      ok: false,
      detail: (error as Error).message,
      hint: 'login needs a local port on 127.0.0.1; check firewall/sandbox rules',
    });
  }

  if (as && profile?.client) {
    if (profile.client.issuer !== as.issuer) {
      add({
        name: 'client registration',
        ok: false,
        detail: `registered at ${profile.client.issuer}, not ${as.issuer}`,
        hint: 'run `rsi login` to register again',
      });
    } else {
      try {
        const ok = await registrationAccepted({ oauth }, as, profile.client);
        add({
          name: 'client registration',
          ok,
          detail: ok ? `${profile.client.clientId} accepted` : 'no longer accepted by the service',
          hint: 'run `rsi login`: it registers again',
        });
      } catch (error) {
        add({ name: 'client registration', ok: false, detail: (error as Error).message });
      }
    }
  } else if (profile?.client) {
    // One is stored; with the service down it just cannot be asked whether it still accepts it.
    add({
      name: 'client registration',
      ok: true,
      skipped: true,
      detail: `${profile.client.clientId} stored; could not be checked (the service's discovery did not answer)`,
    });
  } else {
    add({ name: 'client registration', ok: true, skipped: true, detail: 'none stored yet (login registers one)' });
  }
  return checks;
}

async function aboutThisRsi(version: string): Promise<Check[]> {
  const { installation } = await import('../../io/installation.js');
  const where = installation(PACKAGE_NAME);
  const how =
    where.kind === 'executable'
      ? `single executable ${where.path}`
      : where.kind === 'npm'
        ? `npm package (${where.npm}${where.release ? '' : ', not a release: no update check'}) in ${where.path}`
        : `run from a checkout of the sources (no update check), ${where.path}`;
  // The oldest Node package.json `engines` allows (src/release.ts); docs/install.md says why.
  const supported = nodeSupported(process.versions.node);
  return [
    { name: 'rsi', ok: true, detail: `${PACKAGE_NAME} ${version}, ${how}` },
    {
      name: 'Node.js',
      ok: supported,
      detail: `${process.version}${where.kind === 'executable' ? ' (built into the executable)' : ` (${process.execPath})`}`,
      hint: `rsi needs Node.js ${MIN_NODE.join('.')} or later (the 22, 24 and 26 lines; package.json engines: ${NODE_ENGINES})`,
    },
    { name: 'platform', ok: true, detail: `${process.platform} ${process.arch}, ${os.type()} ${os.release()}` },
  ];
}

/** An error's own hint, unless it sends the user to `rsi doctor`, which is where they are. */
function hintOf(error: unknown, fallback?: string): string | undefined {
  const hint = (error as CliError).hint;
  return hint && !hint.includes('rsi doctor') ? hint : fallback;
}
