import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ApiEnv } from '../src/config.js';
import { LauncherEnv } from '@voicegw/tools/launcher';

const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');

describe('docs/configuration.md', () => {
  it.each([
    ['api', ApiEnv],
    ['launcher', LauncherEnv],
  ])('documents every %s variable', (_name, schema) => {
    const missing = Object.keys(schema.properties).filter(
      (name) => !new RegExp(`^\\|\\s*\`${name}\`\\s*\\|`, 'm').test(doc),
    );
    expect(missing).toEqual([]);
  });
});
