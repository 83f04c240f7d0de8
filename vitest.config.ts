import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      '{shared,api,media-node}/test/**/*.test.ts',
      'loadtest/receiver/test/*.test.ts',
      'bench/test/*.test.ts',
    ],
    globalSetup: ['shared/test/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
