// gh's `--json name` (one field) cannot be told from `--json EGFR` (an argument): commander says
// "too many arguments"; rsi then adds how to write the field list it can read.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/main.js';
import { fakeIo } from '../support/fakes.js';

const env = () => ({ RSI_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'rsi-json-hint-')) });

describe('--json with one word after it', () => {
  it('projects list --json name: exit 2, with a hint naming --json=name and --fields', async () => {
    const io = fakeIo({ tty: false });
    io.stdinStream.end();
    expect(await main({ argv: ['projects', 'list', '--json', 'name'], env: env(), io })).toBe(2);
    expect(io.err()).toBe(
      "rsi: too many arguments for 'list'. Expected 0 arguments but got 1: name.\nhint: to choose fields, write --json=name or --fields name\n",
    );
  });

  it('an excess argument without --json before it gets no such hint', async () => {
    const io = fakeIo({ tty: false });
    io.stdinStream.end();
    expect(await main({ argv: ['projects', 'list', 'name'], env: env(), io })).toBe(2);
    expect(io.err()).toBe("rsi: too many arguments for 'list'. Expected 0 arguments but got 1: name.\n");
  });
});
