// The default project is checked (issue 43, item 4), through real processes against a real
// sandbox: `rsi config set project NAME` with a typo is refused with did-you-mean and sets nothing;
// signed out or offline it is set with a warning; every error about the default says where the
// name came from (the config, or RSI_PROJECT).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { useSandbox } from '../support/e2e.js';

const e2e = useSandbox();
const NAME = "Parkinson's targets";

beforeAll(async () => {
  await e2e.newProject(NAME, { setup: false });
});

describe('rsi config set project', () => {
  it('a typo is refused with did-you-mean, exit 2, and nothing is set', async () => {
    const r = await e2e.rsi(['config', 'set', 'project', 'Parkinsons targets']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^rsi: no project named "Parkinsons targets"; nothing was set\n/);
    expect(r.stderr).toMatch(/^hint: did you mean "Parkinson's targets"\? your projects: /m);
    expect((await e2e.rsi(['config', 'get', 'project'])).stdout).toBe('');
  });

  it('a name in other letter case is stored as the service spells it', async () => {
    const r = await e2e.rsi(['config', 'set', 'project', "PARKINSON'S TARGETS"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`✓ Set project to ${NAME} for profile default\n`);
    expect((await e2e.rsi(['config', 'get', 'project'])).stdout).toBe(`${NAME}\n`);
    expect((await e2e.rsi(['config', 'unset', 'project'])).code).toBe(0);
  });

  it('signed out, it is set as given with a warning; the command that uses it names the config as its source', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'rsi-default-'));
    const offline = await runCli(['config', 'set', 'project', 'Parkinsons targets'], {
      env: { RSI_BASE_URL: e2e.url, RSI_CONFIG_DIR: configDir },
    });
    expect(offline.code, offline.stderr).toBe(0);
    expect(offline.stderr).toBe(
      '✓ Set project to Parkinsons targets for profile default\nwarning: "Parkinsons targets" was not checked with the service (not signed in); commands check it when they use it\n',
    );
    const used = await runCli(['status'], { env: { RSI_TOKEN: e2e.token, RSI_BASE_URL: e2e.url, RSI_CONFIG_DIR: configDir } });
    expect(used.code).toBe(2);
    expect(used.stderr).toMatch(
      /^rsi: no project named "Parkinsons targets" \(the default project of profile default, from the config \(`rsi config set project`\)\)\n/,
    );
    expect(used.stderr).toMatch(/^hint: did you mean "Parkinson's targets"\? .*; change it: `rsi config set project <NAME>`/m);
  });

  it('with the service out of reach, it is set with a warning saying why', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'rsi-default-'));
    const r = await runCli(['config', 'set', 'project', 'Anything'], {
      env: { RSI_TOKEN: 'x', RSI_BASE_URL: 'http://127.0.0.1:1', RSI_CONFIG_DIR: configDir },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^warning: "Anything" was not checked with the service \(.+\); commands check it when they use it$/m);
  });
});

describe('RSI_PROJECT', () => {
  it('an error about it says the name came from RSI_PROJECT; a project named on the line is not its business', async () => {
    const r = await e2e.rsi(['signals'], { env: { RSI_PROJECT: 'Parkinsons targets' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^rsi: no project named "Parkinsons targets" \(the default project, from RSI_PROJECT\)\n/);
    expect(r.stderr).toMatch(/^hint: did you mean "Parkinson's targets"\? .*; set RSI_PROJECT to one of them, or unset it\n/m);
    const named = await e2e.rsi(['signals', 'No such one'], { env: { RSI_PROJECT: NAME } });
    expect(named.code).toBe(2);
    expect(named.stderr).toMatch(/^rsi: no project named "No such one"\n/);
    expect(named.stderr).not.toContain('RSI_PROJECT');
  });
});
