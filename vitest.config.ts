import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      '{shared,api,media-node,sdk}/test/**/*.test.ts',
      'loadtest/receiver/test/*.test.ts',
      'bench/test/*.test.ts',
    ],
    globalSetup: ['shared/test/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // A poll ends as soon as its condition holds; the limit only matters on a loaded machine,
    // where CI on a noisy host found vitest's default of 1 s too short for shard rebalancing.
    expect: { poll: { timeout: 5_000 } },
    pool: 'forks',
    reporters: ['default'],
  },
});
