import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // NOTE: one test file per core, at least two. Most of a test's time is spent waiting on the processes it
    // starts (the CLI, hooks, git, the Claude Code CLI, servers), so vitest's default (cores - 1: one file at a time
    // on 2 cores) left half the machine idle: 16 minutes against 7.5 on 2 cores. No test times anything, so a
    // loaded machine makes them slower, not red (README, "Tests").
    maxWorkers: Math.max(2, os.availableParallelism()),
  },
});
