// The reference in its two forms, both from the command tree: `rsi help reference` (every command's
// help in one text) and the man pages the build writes to dist/man/ (rsi.1, one page per command),
// which package.json's `man` lists so npm installs them. The pages are read by groff and man-db as
// a person's `man` would.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadProgram } from '../../src/program.js';
import { commandsOf, manName, pathOf } from '../../src/commands/help/reference.js';
import { fakeCtx, fakeIo } from '../support/fakes.js';
import { skipWithout } from '../support/system.js';
import { runCli } from '../support/inproc.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; man: string[] };
const tree = await loadProgram(fakeCtx(fakeIo(), 'tsv'));
const commands = commandsOf(tree);

function has(program: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0;
}
const noGroff = skipWithout({ name: 'groff', available: has('groff'), reason: 'groff is not installed (Debian: groff-base)' });
const noMan = skipWithout({ name: 'man (man-db)', available: has('man'), reason: 'man is not installed (Debian: man-db)' });

describe('the command tree walked for the reference', () => {
  it('has every command, root first, and no hidden one', () => {
    const paths = commands.map(pathOf);
    expect(paths[0]).toBe('rsi');
    expect(paths).toEqual(expect.arrayContaining(['rsi keywords search', 'rsi analyses run', 'rsi mcp serve', 'rsi help', 'rsi keywords']));
    expect(paths.filter((p) => p.includes('__complete'))).toEqual([]);
  });
});

describe('rsi help reference', () => {
  it("prints every command's heading, usage and own options, and what each adds to its help", async () => {
    const r = await runCli(['help', 'reference']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(new RegExp(`^# rsi reference \\(${PKG.version.replace(/\./g, '\\.')}\\)\n`));
    for (const cmd of commands) {
      const heading = `\n## ${pathOf(cmd)}\n\nUsage: ${pathOf(cmd)}`;
      expect(r.stdout, pathOf(cmd)).toContain(heading);
      // rsi's own options (every command's) are in the `rsi help environment` section after its help.
      const rest = r.stdout.slice(r.stdout.indexOf(heading) + heading.length);
      const section = cmd === commands[0] ? rest.split(`\n## ${pathOf(commands[1]!)}\n`)[0]! : rest.split('\n## ')[0]!;
      // A hidden option (gh's `--exit-status`, taken as typed) is in docs/commands.md, not on the screens.
      for (const option of cmd.options)
        if (option.long && !option.hidden) expect(section, `${pathOf(cmd)} ${option.long}`).toContain(option.long);
    }
    // Examples and field lists (added help text) come along.
    expect(r.stdout).toContain('rsi keywords search kinase --all --format csv > kinases.csv');
    // The options every command takes are listed once, with rsi itself, not under every command.
    expect(r.stdout.split('--http-timeout <seconds>').length - 1).toBe(1);
  });

  it('is not mistaken for a command: `rsi help nosuch` still fails as before', async () => {
    const r = await runCli(['help', 'nosuch']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown command "nosuch"');
  });
});

describe('man pages', () => {
  const built = readdirSync(join(ROOT, 'dist', 'man')).sort();

  it('one per command, rsi.1 first in package.json `man`, which lists exactly what the build wrote', () => {
    const expected = commands.map(manName);
    expect(expected[0]).toBe('rsi.1');
    expect([...built]).toEqual([...expected].sort());
    // Run `npm run build` and copy the list if a command was added or removed.
    expect(PKG.man).toEqual(
      expected
        .map((name) => `dist/man/${name}`)
        .sort((a, b) => (a.endsWith('/rsi.1') ? -1 : b.endsWith('/rsi.1') ? 1 : a.localeCompare(b))),
    );
  });

  it('each page has the sections man expects and is plain ASCII roff', () => {
    for (const name of built) {
      const text = readFileSync(join(ROOT, 'dist', 'man', name), 'utf8');
      // The footer names the package (package.json `name`, roff-escaped) and its version.
      const footer = `"${PKG.name.replaceAll('-', '\\-')} ${PKG.version}"`;
      expect(text.startsWith(`.TH ${name.slice(0, -2).toUpperCase().replaceAll('-', '\\-')} 1 "" ${footer} "rsi manual"\n`), name).toBe(
        true,
      );
      expect(text, name).toMatch(/^\.TH RSI\S* 1 "" "\S+ [\d.]+" "rsi manual"\n\.SH NAME\n\S+ \\- .+\n\.SH SYNOPSIS\n/);
      expect(text, name).toMatch(/^\.SH DESCRIPTION$/m);
      expect(text, name).not.toMatch(/[^\x00-\x7f]/);
      // No line of text may start with a dot or quote roff would take as a request.
      for (const line of text.split('\n')) if (/^[.']/.test(line)) expect(line, name).toMatch(/^\.(TH|SH|SS|TP|B|PP|RS|RE|nf|fi)( |$)/);
    }
  });

  it.skipIf(noGroff)('groff reads every page without a warning', () => {
    // One groff for all pages (each starts with .TH); a warning names its file and line.
    const r = spawnSync('groff', ['-man', '-ww', '-z', ...built.map((name) => join(ROOT, 'dist', 'man', name))], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
  });

  it.skipIf(noMan)('man -l renders a page: name, synopsis, options and examples', () => {
    const r = spawnSync('man', ['-l', join(ROOT, 'dist', 'man', 'rsi-keywords-search.1')], {
      encoding: 'utf8',
      env: { ...process.env, MANPAGER: 'cat', PAGER: 'cat', MANWIDTH: '100', LC_ALL: 'C.UTF-8' },
    });
    expect(r.status, r.stderr).toBe(0);
    const text = r.stdout.replace(/.\x08/g, '');
    expect(text).toMatch(/^NAME\n\s+rsi-keywords-search - search keywords/m);
    expect(text).toMatch(/^SYNOPSIS\n\s+rsi keywords search \[options\] <query>/m);
    expect(text).toMatch(/^\s+--limit <n>\n\s+results per page/m);
    expect(text).toMatch(/^EXAMPLES\n\s+rsi keywords search egfr/m);
    expect(text).toMatch(/^SEE ALSO\n\s+rsi-keywords\(1\), rsi\(1\)/m);
  });
});

// npm 12 links no man pages for a global package (test/journeys/install.test.ts shows it), so `man
// rsi` finds nothing there: `rsi help <command> --man` shows the same page on any install.
describe('rsi help <command> --man', () => {
  const MAN_ENV = { MANPAGER: 'cat', PAGER: 'cat', MANWIDTH: '100', LC_ALL: 'C.UTF-8' };
  const rendered = (name: string) =>
    spawnSync('man', ['-l', join(ROOT, 'dist', 'man', name)], { encoding: 'utf8', env: { ...process.env, ...MAN_ENV } }).stdout;

  it.skipIf(noMan)('shows, through man, exactly the page the build shipped: the root, a group and a command', async () => {
    for (const [words, page] of [
      [[], 'rsi.1'],
      [['keywords'], 'rsi-keywords.1'],
      [['analyses', 'run'], 'rsi-analyses-run.1'],
      [['keywords', 'search'], 'rsi-keywords-search.1'],
    ] as const) {
      const r = await runCli(['help', ...words, '--man'], { env: { PATH: process.env.PATH, ...MAN_ENV } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout, page).toBe(rendered(page));
      expect(r.stdout).toMatch(/^NAME$/m);
    }
  });

  it('without a man program: one line that says so and names the command that prints the same text, exit 1', async () => {
    const r = await runCli(['help', 'keywords', 'search', '--man'], { env: { PATH: join(ROOT, 'test', 'no-such-folder') } });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^rsi: no `man` program on this system to show the manual\n/);
    expect(r.stderr).toContain('`rsi help keywords search` prints the same text');
  });

  it('an unknown command is a usage error, as without --man', async () => {
    const r = await runCli(['help', 'nosuch', '--man']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown command "nosuch"');
  });
});
