/**
 * Runs documentation snippets the way a reader would: bash with `set -e -o pipefail`, `rsi` on PATH
 * resolving to this checkout's bin/rsi.js, in a temporary folder.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHILD_BOUND_MS, RSI_BIN, cleanEnv } from './cli.js';

/** A folder holding an executable `rsi` that runs this checkout, for PATH. */
export function rsiOnPath(): string {
  const bin = mkdtempSync(join(tmpdir(), 'rsi-bin-'));
  const file = join(bin, 'rsi');
  writeFileSync(file, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(RSI_BIN)} "$@"\n`);
  chmodSync(file, 0o755);
  return bin;
}

export interface ShellResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `script` in `bash -e -o pipefail` (unless strict: false), with `rsi` on PATH and `env` over a clean environment. */
export function runBash(
  script: string,
  options: { env?: Record<string, string | undefined>; cwd?: string; timeoutMs?: number; strict?: boolean } = {},
): Promise<ShellResult> {
  const cwd = options.cwd ?? mkdtempSync(join(tmpdir(), 'rsi-sh-'));
  mkdirSync(cwd, { recursive: true });
  const bin = rsiOnPath();
  return new Promise((resolve, reject) => {
    // strict: false runs the script as a plain `bash script.sh` would, without -e or pipefail.
    const strict = options.strict === false ? [] : ['-e', '-o', 'pipefail'];
    const child = spawn('bash', ['--noprofile', '--norc', ...strict, '-c', script], {
      cwd,
      env: cleanEnv({ ...options.env, PATH: `${bin}:${process.env.PATH}` }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? CHILD_BOUND_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The fenced code blocks of a Markdown text in a language, each with the heading above it. */
export function codeBlocks(markdown: string, lang: string): Array<{ heading: string; code: string }> {
  const out: Array<{ heading: string; code: string }> = [];
  let heading = '';
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^#{1,6} /.test(line)) heading = line.replace(/^#+ /, '');
    if (line.trim() === `\`\`\`${lang}`) {
      const body: string[] = [];
      for (i++; i < lines.length && lines[i]!.trim() !== '```'; i++) body.push(lines[i]!);
      out.push({ heading, code: body.join('\n') });
    }
  }
  return out;
}
