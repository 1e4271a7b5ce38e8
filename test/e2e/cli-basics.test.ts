// The built CLI's own surface, as a user meets it first: help, version, unknown input. Runs the
// bundled bin/rsi.js, so bundling mistakes (renamed classes, CommonJS interop) show up here.
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/inproc.js';

describe('rsi basics', () => {
  it.each([[['--help']], [['keywords', 'search', '--help']], [['help', 'projects']], [['sandbox', '--help']]])(
    '%j prints help on stdout, exit 0',
    async (args) => {
      const r = await runCli(args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('Usage: rsi');
      expect(r.stderr).toBe('');
    },
  );

  it('--version prints the package version', async () => {
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it.each([[['bogus']], [['--bogus']], [['keywords', 'search']], [['keywords', 'search', 'x', '--limit']]])(
    '%j is a usage error: exit 2, one rsi: line',
    async (args) => {
      const r = await runCli(args);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^rsi: /);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    },
  );

  it('completion prints a script', async () => {
    const r = await runCli(['completion', 'bash']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('complete -o default -F _rsi_completion rsi');
  });
});
