import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      '{shared,api,media-node,media-node/simulator,sdk,tools}/test/**/*.test.ts',
      'loadtest/receiver/test/*.test.ts',
      'tools/bench/test/*.test.ts',
    ],
    globalSetup: ['tools/test/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // A poll ends as soon as its condition holds; the limit only matters on a loaded machine,
    // where CI on a noisy host found vitest's default of 1 s too short for shard rebalancing.
    expect: { poll: { timeout: 5_000 } },
    pool: 'forks',
    reporters: ['default'],
  },
});
