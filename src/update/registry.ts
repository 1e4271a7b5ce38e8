/**
 * Which registry npm itself would ask for rsi's package, read as npm reads its configuration: the
 * environment (`npm_config_*`, any case), then the user's npmrc (`npm_config_userconfig`, else
 * ~/.npmrc), then the global one (`npm_config_globalconfig`, else <prefix>/etc/npmrc, the prefix
 * being `npm_config_prefix` or the one this Node was installed in). For a scoped name,
 * `@scope:registry` from any of them wins over `registry`, as in npm. Nothing else of an npmrc is
 * used: no token, no certificate, no user agent goes with the check (docs/release.md).
 * @see https://docs.npmjs.com/cli/configuring-npm/npmrc
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Env } from '../io/io.js';

export const DEFAULT_REGISTRY = 'https://registry.npmjs.org/';

/** The npm settings read here, from `npm_config_<name>` in the environment (and the npmrc files). */
export const NPM_SETTINGS = ['registry', 'userconfig', 'globalconfig', 'prefix'] as const;

/** What finding the npmrc files needs of the machine (injected by tests). */
export interface NpmHost {
  platform: NodeJS.Platform;
  home: string;
  /** The running Node binary: npm's default prefix is the folder Node was installed in. */
  execPath: string;
  readFile(path: string): string | undefined;
}

export function currentNpmHost(home: string): NpmHost {
  return {
    platform: process.platform,
    home,
    execPath: process.execPath,
    readFile: (path) => {
      try {
        return readFileSync(path, 'utf8');
      } catch {
        return undefined;
      }
    },
  };
}

/** `key=value` lines of an npmrc; `;` and `#` start comments; `${VAR}` expands from the environment. */
export function parseNpmrc(text: string, env: Env): Map<string, string> {
  const settings = new Map<string, string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith(';') || line.startsWith('#') || line.startsWith('[')) continue;
    const at = line.indexOf('=');
    if (at <= 0) continue;
    const key = line.slice(0, at).trim();
    let value = line.slice(at + 1).trim();
    if (/^(["']).*\1$/.test(value)) value = value.slice(1, -1);
    // npm fails on an unset ${VAR}; here the check simply finds no usable address and does nothing.
    value = value.replace(/\$\{([^}?]+)(\?)?\}/g, (whole, name: string, optional?: string) => env[name] ?? (optional ? '' : whole));
    settings.set(key, value);
  }
  return settings;
}

/** npm's environment settings: `npm_config_<key>` in any case, later duplicates winning as in npm. */
function fromEnv(env: Env): Map<string, string> {
  const settings = new Map<string, string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !/^npm_config_/i.test(name)) continue;
    settings.set(name.slice('npm_config_'.length).toLowerCase(), value);
  }
  return settings;
}

/** The registry's base address for `packageName` (ending in `/`), and where it was set. */
export function npmRegistry(env: Env, packageName: string, host: NpmHost): { url: string; from: string } {
  const environment = fromEnv(env);
  const userFile = environment.get('userconfig') ?? join(host.home, '.npmrc');
  const user = parseNpmrc(host.readFile(userFile) ?? '', env);
  const prefix =
    environment.get('prefix') ??
    user.get('prefix') ??
    (host.platform === 'win32' ? dirname(host.execPath) : dirname(dirname(host.execPath)));
  const globalFile = environment.get('globalconfig') ?? user.get('globalconfig') ?? join(prefix, 'etc', 'npmrc');
  const global = parseNpmrc(host.readFile(globalFile) ?? '', env);
  const levels: [string, Map<string, string>][] = [
    ['the environment', environment],
    [userFile, user],
    [globalFile, global],
  ];
  const scope = packageName.startsWith('@') ? packageName.split('/')[0] : undefined;
  const keys = scope ? [`${scope}:registry`, 'registry'] : ['registry'];
  for (const key of keys) {
    for (const [from, settings] of levels) {
      const value = settings.get(key);
      if (value) return { url: value.endsWith('/') ? value : `${value}/`, from };
    }
  }
  return { url: DEFAULT_REGISTRY, from: "npm's default" };
}

/**
 * The one request of the check: the package's dist-tags (`{"latest":"1.2.3",…}`, a few bytes), as
 * `npm dist-tag ls` asks; a scoped name's `/` is escaped, as npm escapes it. Only http(s).
 */
export function distTagsUrl(registry: string, packageName: string): URL | undefined {
  try {
    const url = new URL(`-/package/${packageName.replace('/', '%2f')}/dist-tags`, registry);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}
