import { defineConfig } from 'vitest/config';

// The machines have two cores: keep the worker count there, and give git-backed tests room.
// Three projects, so the inner loop can leave out the slow part: `unit` is the pure core (no
// git, seconds), `git` runs real repositories and the built programs, `stress` kills, races and
// soaks real processes (most of the suite's time). `npm test` runs all three; `npm run
// test:quick` leaves out `stress`.
const STRESS = [
  'test/tx/crash.test.ts',
  'test/tx/concurrency.test.ts',
  'test/tx/liveness.test.ts',
  'test/tx/soak.test.ts',
  'test/tx/long-session.test.ts',
  'test/remote/bots.test.ts',
];
const UNIT = [
  'test/patch/**/*.test.ts',
  'test/match/**/*.test.ts',
  'test/apply/**/*.test.ts',
  'test/text/**/*.test.ts',
  'test/errors.test.ts',
  'test/warnings.test.ts',
  'test/engine/**/*.test.ts',
  'test/logs/**/*.test.ts',
  'test/commands/moves.test.ts',
  'test/tx/touched-files.test.ts',
  'test/tx/in-parallel.test.ts',
];

export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT } },
      { extends: true, test: { name: 'git', include: ['test/**/*.test.ts'], exclude: [...UNIT, ...STRESS] } },
      { extends: true, test: { name: 'stress', include: STRESS } },
    ],
  },
});
