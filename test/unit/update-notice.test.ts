// The update notice's rules (src/update/notice.ts, check.ts); the terminal, the stub registry and
// the background check are test/system/tmux-update-notice.test.ts.
import { join } from 'node:path/posix';
import { describe, expect, it } from 'vitest';
import { registryUrl } from '../../src/update/check.js';
import { DAY_MS, decide, newer, noticeText, notifierAllowed, stateFile } from '../../src/update/notice.js';

const npm = { kind: 'npm', path: '/usr/lib/node_modules/rsi' } as const;

describe('notifierAllowed', () => {
  const allowed = (argv: string[], env: Record<string, string> = {}, tty = true, format?: string) =>
    notifierAllowed(env, argv, tty, format);

  it('a person at a terminal running a command: yes', () => {
    expect(allowed(['keywords', 'search', 'egfr'])).toBe(true);
    expect(allowed(['status'], { RSI_NO_UPDATE_NOTIFIER: '0', CI: 'false' })).toBe(true);
  });

  it('no terminal, CI, the switches, machine output, mcp serve, completion: no', () => {
    expect(allowed(['status'], {}, false)).toBe(false);
    const envs: Record<string, string>[] = [
      { CI: 'true' },
      { CI: '1' },
      { BUILD_NUMBER: '12' },
      { RUN_ID: '7' },
      { RSI_NO_UPDATE_NOTIFIER: '1' },
      { NO_UPDATE_NOTIFIER: 'yes' },
    ];
    for (const env of envs) expect(allowed(['status'], env), JSON.stringify(env)).toBe(false);
    for (const argv of [
      ['status', '--json'],
      ['projects', 'list', '--json=name'],
      ['api', 'GET', '/x', '--jq', '.'],
      ['mcp', 'serve'],
      ['--profile', 'w', 'mcp', 'serve'],
      ['completion', 'bash'],
      ['__complete', 'k'],
    ])
      expect(allowed(argv), argv.join(' ')).toBe(false);
    expect(allowed(['status'], {}, true, 'json')).toBe(false);
    expect(allowed(['status'], {}, true, 'ndjson')).toBe(false);
  });
});

describe('newer', () => {
  it('compares x.y.z as numbers and never offers a prerelease', () => {
    expect(newer('0.10.0', '0.9.9')).toBe(true);
    expect(newer('1.0.0', '1.0.0')).toBe(false);
    expect(newer('0.9.0', '0.10.0')).toBe(false);
    expect(newer('2.0.0-beta.1', '1.0.0')).toBe(false);
    expect(newer('1.0.0', '1.0.0-rc.1')).toBe(true);
    expect(newer(undefined, '1.0.0')).toBe(false);
  });
});

describe('decide', () => {
  const now = 1_800_000_000_000;
  it('with nothing cached: no notice, a check, and the check claimed in the state', () => {
    expect(decide({}, now, '0.1.0', 'rsi', npm)).toEqual({ check: true, state: { checkedAt: now } });
  });
  it('a newer version cached: the notice, once a day', () => {
    const d = decide({ checkedAt: now - 1000, latest: '0.2.0' }, now, '0.1.0', 'rsi', npm);
    expect(d).toMatchObject({ check: false, state: { shownAt: now } });
    expect(d.notice).toContain('0.1.0 → 0.2.0');
    expect(decide(d.state!, now + DAY_MS - 1, '0.1.0', 'rsi', npm).notice).toBeUndefined();
    expect(decide(d.state!, now + DAY_MS, '0.1.0', 'rsi', npm).notice).toBeDefined();
  });
  it('a check at most once a day; a clock set back does not silence it for ever', () => {
    expect(decide({ checkedAt: now - DAY_MS + 1 }, now, '0.1.0', 'rsi', npm).check).toBe(false);
    expect(decide({ checkedAt: now - DAY_MS }, now, '0.1.0', 'rsi', npm).check).toBe(true);
    expect(decide({ checkedAt: now + 10 * DAY_MS }, now, '0.1.0', 'rsi', npm).check).toBe(true);
  });
});

describe('noticeText', () => {
  it('says how to update each kind of installation; the single executable is told to replace its file', () => {
    expect(noticeText('rsi', '0.1.0', '0.2.0', npm)).toBe(
      '\nA new release of rsi is available: 0.1.0 → 0.2.0\nTo update: npm install -g rsi@latest\n',
    );
    expect(noticeText('rsi', '0.1.0', '0.2.0', { kind: 'executable', path: '/opt/bin/rsi' })).toContain(
      'To update this single executable, replace /opt/bin/rsi with the 0.2.0 build for your system',
    );
    expect(noticeText('rsi', '0.1.0', '0.2.0', { kind: 'checkout', path: '/src/rsi' })).toContain(
      'git pull && npm install && npm run build (in /src/rsi)',
    );
  });
});

describe('where it asks and where it keeps the answer', () => {
  it("the registry is npm's setting, default registry.npmjs.org; only the package name is in the URL", () => {
    expect(registryUrl({}, 'rsi')?.href).toBe('https://registry.npmjs.org/rsi/latest');
    expect(registryUrl({ npm_config_registry: 'http://127.0.0.1:4873' }, 'rsi')?.href).toBe('http://127.0.0.1:4873/rsi/latest');
    expect(registryUrl({ npm_config_registry: 'https://npm.corp.test/api/npm/' }, '@acme/rsi')?.href).toBe(
      'https://npm.corp.test/api/npm/@acme%2Frsi/latest',
    );
    expect(registryUrl({ npm_config_registry: 'file:///etc' }, 'rsi')).toBeUndefined();
  });
  it("rsi's cache folder, per platform", () => {
    expect(stateFile({ XDG_CACHE_HOME: '/c' }, 'linux', '/h', join)).toBe('/c/rsi/update-check.json');
    expect(stateFile({ XDG_CACHE_HOME: 'relative' }, 'linux', '/h', join)).toBe('/h/.cache/rsi/update-check.json');
    expect(stateFile({}, 'darwin', '/h', join)).toBe('/h/Library/Caches/rsi/update-check.json');
    expect(stateFile({ LOCALAPPDATA: '/L' }, 'win32', '/h', join)).toBe('/L/rsi/Cache/update-check.json');
  });
});
