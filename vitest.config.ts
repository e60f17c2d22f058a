import { defineConfig } from 'vitest/config';

// The machines have two cores: keep the worker count there, and give git-backed tests room.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
