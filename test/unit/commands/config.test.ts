// `rsi config get|set|list|unset` and `rsi auth switch`: flags parsed into options, and runs against
// a real ConfigStore in a temporary folder (the settings sit beside the profiles in config.json).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as authSwitch from '../../../src/commands/auth/switch/switch.js';
import * as config from '../../../src/commands/config/config.js';
import type { Credentials } from '../../../src/auth/credentials.js';
import { resolveGlobals } from '../../../src/context.js';
import { ConfigStore } from '../../../src/storage/config.js';
import { UsageError } from '../../../src/errors.js';
import { parseFlags } from '../../support/commands.js';
import { fakeCtx, fakeIo } from '../../support/fakes.js';

describe('config list: flags', () => {
  it('takes nothing', async () => expect(await parseFlags(config.build, ['list'])).toEqual({ action: 'list' }));
});
describe('config get: flags', () => {
  it('takes a key', async () => {
    expect(await parseFlags(config.build, ['get', 'pager'])).toEqual({ action: 'get', key: 'pager' });
  });
});
describe('config set: flags', () => {
  it('takes a key and a value', async () => {
    expect(await parseFlags(config.build, ['set', 'pager', 'less -R'])).toEqual({ action: 'set', key: 'pager', value: 'less -R' });
  });
});
describe('config unset: flags', () => {
  it('takes a key', async () => expect(await parseFlags(config.build, ['unset', 'time'])).toEqual({ action: 'unset', key: 'time' }));
});
describe('auth switch: flags', () => {
  it('takes a profile', async () => {
    expect(await parseFlags(authSwitch.build, ['work'])).toEqual({ profile: 'work' });
    await expect(parseFlags(authSwitch.build, [])).rejects.toThrow(/missing required argument 'profile'/);
  });
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rsi-config-unit-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ version: 1, profiles: { default: { baseUrl: 'https://a.example' } } }), {
    mode: 0o600,
  });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function ctxFor(env: Record<string, string> = {}) {
  const io = fakeIo(false);
  const credentials = { config: new ConfigStore(dir) } as Partial<Credentials>;
  return { io, ctx: fakeCtx(io, { credentials, env: { RSI_CONFIG_DIR: dir, ...env } }) };
}

describe('config: run', () => {
  it('keeps a setting under the lock without touching the profiles', async () => {
    const { io, ctx } = ctxFor();
    await config.run({ action: 'set', key: 'prompts', value: 'off' }, ctx);
    expect(io.err()).toBe('✓ Set prompts to off\n');
    const file = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(file).toEqual({ version: 1, profiles: { default: { baseUrl: 'https://a.example' } }, settings: { prompts: 'off' } });
  });

  it('refuses an unknown key and a default profile that does not exist', async () => {
    const { ctx } = ctxFor();
    await expect(config.run({ action: 'get', key: 'nope' }, ctx)).rejects.toBeInstanceOf(UsageError);
    await expect(config.run({ action: 'set', key: 'profile', value: 'work' }, ctx)).rejects.toThrow('no profile named "work"');
    await expect(authSwitch.run({ profile: 'work' }, ctx)).rejects.toThrow('no profile named "work"');
  });
});

describe('settings in the global options: flags and environment win', () => {
  const io = fakeIo(true);
  it('format: --format, then the setting, then the terminal default', () => {
    expect(resolveGlobals({}, {}, io, { format: 'csv' }).format).toBe('csv');
    expect(resolveGlobals({ format: 'tsv' }, {}, io, { format: 'csv' }).format).toBe('tsv');
    expect(resolveGlobals({ json: true }, {}, io, { format: 'csv' }).format).toBe('json');
    expect(resolveGlobals({}, {}, io, {}).format).toBe('table');
  });
  it('profile: --profile, then RSI_PROFILE, then the setting', () => {
    expect(resolveGlobals({}, {}, io, { profile: 'work' }).profile).toBe('work');
    expect(resolveGlobals({}, { RSI_PROFILE: 'ci' }, io, { profile: 'work' }).profile).toBe('ci');
    expect(resolveGlobals({ profile: 'x' }, { RSI_PROFILE: 'ci' }, io, { profile: 'work' }).profile).toBe('x');
  });
  it('time: --time, then RSI_TIME, then the setting', () => {
    expect(resolveGlobals({}, {}, io, {}).time).toBe('relative');
    expect(resolveGlobals({}, {}, io, { time: 'absolute' }).time).toBe('absolute');
    expect(resolveGlobals({}, { RSI_TIME: 'relative' }, io, { time: 'absolute' }).time).toBe('relative');
    expect(resolveGlobals({ time: 'absolute' }, { RSI_TIME: 'relative' }, io, {}).time).toBe('absolute');
    expect(() => resolveGlobals({}, { RSI_TIME: 'soon' }, io, {})).toThrow(/--time must be relative or absolute/);
  });
});
