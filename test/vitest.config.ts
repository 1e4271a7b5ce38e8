import { defineConfig } from 'vitest/config';

// One sandbox per test file, files in parallel: most tests wait on child processes and sockets,
// so one worker more than the 2 CI cores keeps the machine busy. The suite is CPU-bound (every e2e
// test starts rsi processes), so more workers only share the same cores: measured back to back,
// 3 workers took 158 s and 6 took 172 s (docs/performance.md, "The suite").
export default defineConfig({
  test: {
    root: new URL('..', import.meta.url).pathname,
    include: ['test/**/*.test.ts'],
    // The run's temporary files in one folder, removed at the end (test/support/run-tmpdir.ts).
    globalSetup: ['test/support/run-tmpdir.ts'],
    pool: 'forks',
    // One fork runs many files instead of one fork (and one vite module graph) per file: a third
    // less CPU for the unit and sandbox files (docs/performance.md, "The suite"). No test mocks
    // modules or changes process-wide state, so sharing a worker between files is safe.
    isolate: false,
    maxWorkers: 3,
    // Generous outer bounds, not speed limits: tests wait on events (a line printed, a process
    // exiting), and these only stop a test that truly hangs. A bound a busy machine can trip is a
    // broken test (a whole suite beside another copy of itself on 2 cores must still pass).
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // expect.poll waits on an event (a line printed, a file gone): its default bound is 1 s, a
    // speed limit a busy machine trips; 120 s only ends a wait for what never comes.
    expect: { poll: { timeout: 120_000 } },
    reporters: ['default'],
  },
});
