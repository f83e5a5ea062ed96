import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // NOTE: hang guards, not timings: generous enough that a machine whose two cores are busy with other work
    // (the slowest tests take 30 to 75 s on a quiet one) makes the suite slower, never red.
    testTimeout: 240_000,
    hookTimeout: 240_000,
    pool: 'forks',
    // NOTE: one test file per core, at least two. Most of a test's time is spent waiting on the processes it
    // starts (the CLI, hooks, git, the Claude Code CLI, servers), so vitest's default (cores - 1: one file at a time
    // on 2 cores) left half the machine idle: 16 minutes against 7.5 on 2 cores. No test times anything, so a
    // loaded machine makes them slower, not red (README, "Tests").
    maxWorkers: Math.max(2, os.availableParallelism()),
  },
});
