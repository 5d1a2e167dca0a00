import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    // Bounds on a hang, not races: integration tests run fake time over real HTTP, whose real time is the machine's
    // (several times longer at load 15-20 on 2 cores than idle). Tests that run minutes of fake time or external
    // tools raise their own files' bounds (fakeTimeTimeouts, toolTimeouts).
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Integration tests start real servers on port 0; two cores: keep parallelism modest.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    reporters: ['default'],
  },
});
