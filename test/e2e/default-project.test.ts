// A default project (gh's repository context, kubectl's namespace): `rsi config set project NAME`
// per profile, or RSI_PROJECT, used by every command that takes a project when none is named, and
// shown by `auth status` and `config list`.
import { describe, expect, it } from 'vitest';
import { useSandbox } from '../support/e2e.js';

const e2e = useSandbox();

describe('a default project', () => {
  it('is used where the project is left out, per profile, with RSI_PROJECT winning', async () => {
    const name = 'Default project';
    await e2e.newProject(name);
    const set = await e2e.rsi(['config', 'set', 'project', name]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toBe(`✓ Set project to ${name} for profile default\n`);

    for (const command of [['status'], ['signals'], ['opportunities']]) {
      const named = await e2e.rsi([...command, name, '--json']);
      const left = await e2e.rsi([...command, '--json']);
      expect(left.code, `${command}: ${left.stderr}`).toBe(0);
      expect(left.stdout, command.join(' ')).toBe(named.stdout);
    }
    const status = await e2e.rsi(['auth', 'status', '--json']);
    expect(JSON.parse(status.stdout).project).toBe(name);
    expect((await e2e.rsi(['config', 'list'])).stdout).toContain(`project=${name}  # set for profile default\n`);

    // RSI_PROJECT wins over the setting.
    const env = await e2e.rsi(['status'], { env: { RSI_PROJECT: 'No such project' } });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('No such project');

    // Another profile has its own (none here): without a terminal, a usage error naming the fix.
    const other = await e2e.rsi(['status'], { env: { RSI_PROFILE: 'work' } });
    expect(other.code).toBe(2);
    expect(other.stderr).toBe(
      "rsi: missing required argument 'project'\nhint: name the project, or set a default: `rsi config set project NAME` (or RSI_PROJECT)\n",
    );
    expect((await e2e.rsi(['config', 'unset', 'project'])).code).toBe(0);
    expect((await e2e.rsi(['status'])).code).toBe(2);
  });
});
