// `rsi config` and `rsi auth switch` as a person uses them: real bin/rsi.js processes on a temporary
// config folder. Settings are kept in config.json beside the profiles; flags and environment win.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/inproc.js';

let dir: string;
const rsi = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, { env: { RSI_CONFIG_DIR: dir, RSI_CREDENTIAL_STORE: 'file', ...env } });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rsi-config-'));
  const profiles = { default: { baseUrl: 'http://127.0.0.1:9' }, work: { baseUrl: 'http://127.0.0.1:10' } };
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ version: 1, profiles }), { mode: 0o600 });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('rsi config', () => {
  it('set, get, list and unset, stored beside the profiles', async () => {
    expect((await rsi(['config', 'get', 'format'])).stdout).toBe('');
    const set = await rsi(['config', 'set', 'time', 'absolute']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toBe('✓ Set time to absolute\n');
    expect((await rsi(['config', 'get', 'time'])).stdout).toBe('absolute\n');
    expect((await rsi(['config', 'set', 'pager', 'less -R'])).code).toBe(0);
    // Unset keys show what is in force, marked as the default.
    expect((await rsi(['config', 'list'], { PAGER: '' })).stdout).toBe(
      'format=tsv  # default (table at a terminal, tsv piped)\npager=less -R\nprofile=default  # default\n' +
        'project=  # not set for profile default\nprompts=on  # default\ntime=absolute\n',
    );
    expect(JSON.parse((await rsi(['config', 'list', '--json'])).stdout)).toEqual({ pager: 'less -R', time: 'absolute' });
    const file = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(file.settings).toEqual({ pager: 'less -R', time: 'absolute' });
    expect(Object.keys(file.profiles)).toEqual(['default', 'work']);
    expect((await rsi(['config', 'unset', 'pager'])).code).toBe(0);
    expect((await rsi(['config', 'unset', 'time'])).code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).settings).toBeUndefined();
  });

  it('a bad setting written by hand: every command names `rsi config unset KEY`, and that repairs it', async () => {
    const bad = mkdtempSync(join(tmpdir(), 'rsi-config-bad-'));
    const profiles = { default: { baseUrl: 'http://127.0.0.1:9' } };
    writeFileSync(join(bad, 'config.json'), JSON.stringify({ version: 1, profiles, settings: { format: 'yaml' } }), { mode: 0o600 });
    const env = { RSI_CONFIG_DIR: bad, RSI_CREDENTIAL_STORE: 'file' };
    const list = await runCli(['config', 'list'], { env });
    expect(list.stderr).toMatch(/^rsi: .*settings\.format: .*\nhint: run `rsi config unset format`, or fix it in the file\n$/);
    const unset = await runCli(['config', 'unset', 'format'], { env });
    expect(unset.code, unset.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(bad, 'config.json'), 'utf8'))).toEqual({ version: 1, profiles });
    expect((await runCli(['config', 'list'], { env })).code).toBe(0);
    rmSync(bad, { recursive: true, force: true });
  });

  it('an unknown key or a bad value is exit 2 naming what is allowed', async () => {
    const key = await rsi(['config', 'set', 'colour', 'on']);
    expect(key.code).toBe(2);
    expect(key.stderr).toBe('rsi: unknown setting "colour": the settings are format, pager, profile, project, prompts, time\n');
    const value = await rsi(['config', 'set', 'format', 'yaml']);
    expect(value.code).toBe(2);
    expect(value.stderr).toBe('rsi: format must be table, tsv, csv, json or ndjson (got "yaml")\n');
    expect((await rsi(['config', 'set', 'prompts', 'maybe'])).code).toBe(2);
  });

  it('the format setting is the default output; --format wins', async () => {
    expect((await rsi(['config', 'set', 'format', 'json'])).code).toBe(0);
    const env = { RSI_TOKEN: 'x', RSI_BASE_URL: 'http://127.0.0.1:9' };
    const json = await rsi(['auth', 'status', '--offline'], env);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ source: 'RSI_TOKEN' });
    const tsv = await rsi(['auth', 'status', '--offline', '--format', 'tsv'], env);
    expect(tsv.stdout).toMatch(/^profile +default$/m);
    await rsi(['config', 'unset', 'format']);
  });
});

describe('rsi auth switch', () => {
  it('sets the default profile; --profile and RSI_PROFILE still win', async () => {
    const r = await rsi(['auth', 'switch', 'work']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('✓ Now using profile work\n');
    expect((await rsi(['config', 'get', 'profile'])).stdout).toBe('work\n');
    // Not signed in anywhere here: the error names the profile in use.
    expect((await rsi(['auth', 'status', '--offline'])).stderr).toContain('(profile work)');
    expect((await rsi(['auth', 'status', '--offline'], { RSI_PROFILE: 'default' })).stderr).toContain('(profile default)');
    expect((await rsi(['--profile', 'default', 'auth', 'status', '--offline'])).stderr).toContain('(profile default)');
    const note = await rsi(['auth', 'switch', 'default'], { RSI_PROFILE: 'work' });
    expect(note.stderr).toBe('✓ Now using profile default\nnote: RSI_PROFILE is set in this environment and wins over the setting\n');
  });

  it('a profile that does not exist is exit 2 listing the profiles', async () => {
    const r = await rsi(['auth', 'switch', 'nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('rsi: no profile named "nope"\nhint: your profiles: default, work\n');
  });
});
