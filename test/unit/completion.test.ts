// Completion: commands, flags, flag values, profiles and project names (from the service, silent on
// failure), for bash (run for real in a bash child), zsh, fish and PowerShell.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/client/client.js';
import { projectNames, script } from '../../src/commands/completion/completion.js';
import type { Context } from '../../src/context.js';
import { loadProgram } from '../../src/program.js';
import { ConfigStore } from '../../src/storage/config.js';
import { runCli } from '../support/cli.js';
import { fakeClock, fakeCtx, fakeIo } from '../support/fakes.js';

const program = await loadProgram(fakeCtx(fakeIo(), 'tsv'));

/** Runs the generated bash completion for `line` (the cursor at its end) and returns COMPREPLY. */
function complete(line: string, projects = 'Oncology watchlist\nKRAS inhibitors'): string[] {
  const words = line.split(' ');
  const dir = mkdtempSync(join(tmpdir(), 'rsi-compl-'));
  const file = join(dir, 'rsi.bash');
  writeFileSync(file, script('bash', program));
  // A stub `rsi` answers `__complete` the way the real one does, without a service.
  const names = projects
    .split('\n')
    .filter(Boolean)
    .map((n) => `'${n}'`)
    .join(' ');
  const stub = `rsi() { if [[ "$1" == __complete && "$2" == projects ]]; then ${names ? `printf '%s\\n' ${names}` : 'true'}; elif [[ "$1" == __complete ]]; then printf 'default\\nwork\\n'; fi; }`;
  const words_ = words.map((w) => `'${w}'`).join(' ');
  const body = `${stub}\nsource ${file}\nCOMP_WORDS=(${words_}); COMP_CWORD=${words.length - 1}; _rsi_completion; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync('bash', ['--norc', '-c', body], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter(Boolean);
}

describe('bash completion', () => {
  it('is valid bash', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rsi-compl-'));
    writeFileSync(join(dir, 'rsi.bash'), script('bash', program));
    expect(spawnSync('bash', ['-n', join(dir, 'rsi.bash')]).status).toBe(0);
  });

  it('completes commands and flags', () => {
    expect(complete('rsi an')).toEqual(['analyses']);
    expect(complete('rsi analyses r')).toEqual(['run']);
    expect(complete('rsi status P --wa')).toEqual(['--watch']);
  });

  it.each([
    ['rsi --format t', ['table', 'tsv']],
    ['rsi keywords relations X --relation ', ['indications', 'assets', 'pipeline_targets', 'sponsors', 'all']],
    ['rsi keywords relations X --relation sponsors --activity ', ['trials', 'papers', 'patents', 'all']],
    ['rsi projects create --goal ', ['target', 'indication', 'modality']],
    ['rsi analyses run P --type m', ['modality', 'mechanism']],
    ['rsi signals P --analysis-mode n', ['novel_signal_scout']],
    ['rsi --profile w', ['work']],
    ['rsi completion p', ['powershell']],
  ])('%s', (line, want) => {
    expect(complete(line)).toEqual(want);
  });

  it('completes project names, spaces escaped', () => {
    expect(complete('rsi status ')).toEqual(['Oncology\\ watchlist', 'KRAS\\ inhibitors']);
    expect(complete('rsi analyses run K')).toEqual(['KRAS\\ inhibitors']);
    expect(complete('rsi opportunities ', '')).toEqual([]);
  });
});

describe('other shells', () => {
  it('fish completes values and project names', () => {
    const fish = script('fish', program);
    expect(fish).toContain("-l format -xa 'table tsv csv json ndjson'");
    expect(fish).toContain("-l profile -xa '(rsi __complete profiles 2>/dev/null)'");
    expect(fish).toContain("-a '(rsi __complete projects 2>/dev/null)'");
  });

  it('zsh reuses the bash completion', () => {
    expect(script('zsh', program)).toMatch(/^#compdef rsi\n[\s\S]*bashcompinit[\s\S]*_rsi_completion/);
  });

  it('PowerShell registers a native completer with the same data', () => {
    const ps = script('powershell', program);
    expect(ps).toContain('Register-ArgumentCompleter -Native -CommandName rsi');
    expect(ps).toContain("'--relation' = @('indications', 'assets', 'pipeline_targets', 'sponsors', 'all')");
    expect(ps).toMatch(/'analyses run' = @\([^)]*'--profile', [^)]*'--wait'/);
    expect(ps).toMatch(/\$projectCommands = @\([^)]*'status'/);
    expect(ps).toContain('__complete projects');
  });

  it('never offers the hidden __complete command', () => {
    for (const shell of ['bash', 'fish', 'powershell'] as const)
      expect(script(shell, program)).not.toMatch(/[ '"]__complete[ '"]?\s*(-d|\))/);
    expect(complete('rsi __')).toEqual([]);
  });
});

describe('the scripts npm run build renders (dist)', () => {
  // dist/ prints each script from RSI_COMPLETION_SCRIPTS without loading the other commands
  // (src/commands/completion/scripts.ts); it must be the very script the whole tree renders.
  it.each(['bash', 'zsh', 'fish', 'powershell'] as const)('rsi completion %s prints what the tree renders', async (shell) => {
    const r = await runCli(['completion', shell]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(script(shell, program));
  });
});

describe('project names for completion', () => {
  function setup(listProjects: () => Promise<{ projects: { id: string; name: string; role: string }[] }>) {
    const dir = mkdtempSync(join(tmpdir(), 'rsi-compl-cache-'));
    const clock = fakeClock(1_000_000);
    let calls = 0;
    const client = {
      listProjects: async () => {
        calls++;
        return listProjects();
      },
    } as unknown as ApiClient;
    const base = fakeCtx(fakeIo(), { client, clock });
    const ctx: Context = {
      ...base,
      credentials: async () =>
        ({ profileName: 'default', baseUrl: 'http://127.0.0.1:1', source: 'file', configDir: dir, config: new ConfigStore(dir) }) as never,
    };
    return { ctx, clock, dir, calls: () => calls };
  }
  const reply = async () => ({ projects: [{ id: '1', name: 'KRAS inhibitors', role: 'owner' }] });

  it('asks the service on every completion and writes nothing to disk', async () => {
    const { ctx, clock, dir, calls } = setup(reply);
    expect(await projectNames(ctx)).toEqual(['KRAS inhibitors']);
    clock.t += 1;
    expect(await projectNames(ctx)).toEqual(['KRAS inhibitors']);
    expect(calls()).toBe(2);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('`rsi __complete projects` prints nothing and succeeds when the service fails', async () => {
    const { ctx } = setup(() => Promise.reject(new Error('connection refused')));
    const io = ctx.io as ReturnType<typeof fakeIo>;
    const p = await loadProgram(ctx);
    await p.parseAsync(['__complete', 'projects'], { from: 'user' });
    expect(io.out()).toBe('');
    expect(io.err()).toBe('');
  });
});
