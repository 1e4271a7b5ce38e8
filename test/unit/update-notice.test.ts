// The update notice's rules (src/update/notice.ts, check.ts); the terminal, the stub registry and
// the background check are test/system/tmux-update-notice.test.ts.
import { join } from 'node:path/posix';
import { describe, expect, it } from 'vitest';
import { RELEASES_URL } from '../../src/release.js';
import { cacheDir } from '../../src/storage/state.js';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { notifierDefine } from '../../src/build/bundle.mjs';
import { BUILT_WITH_NOTIFIER, DAY_MS, decide, newer, noticeText, notifierAllowed } from '../../src/update/notice.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const npm = { kind: 'npm', npm: 'global', path: '/usr/lib/node_modules/@rsi-cli/rsi', release: true } as const;
const NAME = '@rsi-cli/rsi';

describe('notifierAllowed', () => {
  const allowed = (argv: string[], env: Record<string, string> = {}, tty = true, format?: string) =>
    notifierAllowed(env, argv, { stdoutIsTTY: tty, stderrIsTTY: tty }, format);

  it('a person at a terminal running a command: yes', () => {
    expect(allowed(['keywords', 'search', 'egfr'])).toBe(true);
    expect(allowed(['status'], { RSI_NO_UPDATE_NOTIFIER: '0', CI: 'false' })).toBe(true);
  });

  it('no terminal, CI, the switches, machine output, mcp serve, completion: no', () => {
    expect(allowed(['status'], {}, false)).toBe(false);
    // gh's rule: both streams at a terminal; stdout to a file or a pager is not a person reading stderr.
    expect(notifierAllowed({}, ['status'], { stdoutIsTTY: false, stderrIsTTY: true }, undefined)).toBe(false);
    expect(notifierAllowed({}, ['status'], { stdoutIsTTY: true, stderrIsTTY: false }, undefined)).toBe(false);
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
    expect(decide({}, now, '0.1.0', NAME, npm)).toEqual({ check: true, state: { checkedAt: now } });
  });
  it('a newer version cached: the notice, once a day', () => {
    const d = decide({ checkedAt: now - 1000, latest: '0.2.0' }, now, '0.1.0', NAME, npm);
    expect(d).toMatchObject({ check: false, state: { shownAt: now } });
    expect(d.notice).toContain('0.1.0 → 0.2.0');
    expect(decide(d.state!, now + DAY_MS - 1, '0.1.0', NAME, npm).notice).toBeUndefined();
    expect(decide(d.state!, now + DAY_MS, '0.1.0', NAME, npm).notice).toBeDefined();
  });
  it('a check at most once a day; a clock set back does not silence it for ever', () => {
    expect(decide({ checkedAt: now - DAY_MS + 1 }, now, '0.1.0', NAME, npm).check).toBe(false);
    expect(decide({ checkedAt: now - DAY_MS }, now, '0.1.0', NAME, npm).check).toBe(true);
    expect(decide({ checkedAt: now + 10 * DAY_MS }, now, '0.1.0', NAME, npm).check).toBe(true);
  });
  it('an install that is not a release (a checkout, a linked clone, a renamed copy): no notice, no check, nothing written', () => {
    for (const install of [
      { kind: 'checkout', path: '/src/rsi', release: false },
      { kind: 'npm', npm: 'global', path: '/usr/lib/node_modules/rsi', release: false },
    ] as const)
      expect(decide({ checkedAt: 0, latest: '9.9.9' }, now, '0.1.0', NAME, install)).toEqual({ check: false });
  });
});

describe("the packagers' switch (RSI_BUILD_NO_UPDATE_NOTIFIER=1 npm run build)", () => {
  it('a build without the notifier never allows it, whatever the terminal and the environment', () => {
    expect(notifierAllowed({}, ['status'], { stdoutIsTTY: true, stderrIsTTY: true }, undefined, true)).toBe(true);
    expect(notifierAllowed({}, ['status'], { stdoutIsTTY: true, stderrIsTTY: true }, undefined, false)).toBe(false);
    // This checkout's own sources (vitest, no build): the notifier is in.
    expect(BUILT_WITH_NOTIFIER).toBe(true);
  });

  it('the build turns it off by defining the constant the notice reads; unset, empty or 0 leaves it on', async () => {
    expect(notifierDefine({})).toEqual({});
    expect(notifierDefine({ RSI_BUILD_NO_UPDATE_NOTIFIER: '' })).toEqual({});
    expect(notifierDefine({ RSI_BUILD_NO_UPDATE_NOTIFIER: '0' })).toEqual({});
    const define = notifierDefine({ RSI_BUILD_NO_UPDATE_NOTIFIER: '1' });
    expect(define).toEqual({ RSI_UPDATE_NOTIFIER: 'false' });
    // The very module, bundled as the build bundles it: with the define, BUILT_WITH_NOTIFIER is false.
    for (const [defines, expected] of [
      [define, false],
      [{}, true],
    ] as const) {
      const out = await build({
        stdin: { contents: "export { BUILT_WITH_NOTIFIER } from './src/update/notice.ts';", resolveDir: ROOT, loader: 'ts' },
        bundle: true,
        format: 'esm',
        platform: 'node',
        write: false,
        logLevel: 'silent',
        define: defines,
      });
      const mod = await import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0]!.text).toString('base64')}`);
      expect(mod.BUILT_WITH_NOTIFIER).toBe(expected);
    }
  });
});

describe('noticeText', () => {
  it('names the exact way to update the installation found', () => {
    expect(noticeText(NAME, '0.1.0', '0.2.0', npm)).toBe(
      '\nA new release of @rsi-cli/rsi is available: 0.1.0 → 0.2.0\nTo update: npm install -g @rsi-cli/rsi@latest\n' +
        `Release notes: ${RELEASES_URL}/tag/v0.2.0\n`,
    );
    expect(
      noticeText(NAME, '0.1.0', '0.2.0', {
        kind: 'npm',
        npm: 'local',
        project: '/work/app',
        path: '/work/app/node_modules/@rsi-cli/rsi',
        release: true,
      }),
    ).toContain('To update: npm install @rsi-cli/rsi@latest (in /work/app)');
    expect(
      noticeText(NAME, '0.1.0', '0.2.0', { kind: 'npm', npm: 'npx', path: '/h/.npm/_npx/1/node_modules/@rsi-cli/rsi', release: true }),
    ).toContain('To update: npx @rsi-cli/rsi@latest');
  });
  it('the single executable is told where to get the build for its system, and to replace its file', () => {
    const text = noticeText(
      NAME,
      '0.1.0',
      '0.2.0',
      { kind: 'executable', path: '/opt/bin/rsi', release: true },
      { platform: 'linux', arch: 'arm64' },
    );
    expect(text).toContain(`download rsi-linux-arm64 from ${RELEASES_URL}/tag/v0.2.0`);
    expect(text).toContain('replace /opt/bin/rsi');
    expect(
      noticeText(NAME, '0.1.0', '0.2.0', { kind: 'executable', path: 'C:\\rsi.exe', release: true }, { platform: 'win32', arch: 'x64' }),
    ).toContain('rsi-win-x64.exe');
  });
});

describe('where it keeps the answer', () => {
  it("rsi's cache folder, per platform; a relative XDG_CACHE_HOME is ignored (the XDG spec)", () => {
    expect(cacheDir({ XDG_CACHE_HOME: '/c' }, 'linux', '/h', join)).toBe('/c/rsi');
    expect(cacheDir({ XDG_CACHE_HOME: 'relative' }, 'linux', '/h', join)).toBe('/h/.cache/rsi');
    expect(cacheDir({}, 'darwin', '/h', join)).toBe('/h/Library/Caches/rsi');
    expect(cacheDir({ LOCALAPPDATA: '/L' }, 'win32', '/h', join)).toBe('/L/rsi/Cache');
  });
});
