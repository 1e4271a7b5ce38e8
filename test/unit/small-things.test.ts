// Issue 36's small things: a second --jq is a usage error, not a silent replacement.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { loadProgram } from '../../src/program.js';
import { fakeCtx, fakeIo } from '../support/fakes.js';

describe('--jq', () => {
  it('given twice is a usage error naming the fix', async () => {
    const program = await loadProgram(fakeCtx(fakeIo(), 'tsv'));
    const error = await program.parseAsync(['projects', 'list', '--jq', '.a', '--jq', '.b'], { from: 'user' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe("--jq was given twice: give one filter (combine them with a pipe, as in --jq '.a | .b')");
  });
});
