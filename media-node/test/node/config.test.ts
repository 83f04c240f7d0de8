import { readFileSync } from 'node:fs';
import { ConfigError } from '@voicegw/shared';
import { describe, expect, it } from 'vitest';
import { loadMediaNodeConfig, MediaNodeEnv } from '../../src/index.js';

const doc = readFileSync(new URL('../../../docs/media-node.md', import.meta.url), 'utf8');
const required = { REDIS_URL: 'redis://127.0.0.1:6379', NODE_NAME: 'media-0' };

describe('media node configuration', () => {
  it('docs/media-node.md documents every variable', () => {
    const missing = Object.keys(MediaNodeEnv.properties).filter(
      (name) => !new RegExp(`^\\| \`${name}\` +\\|`, 'm').test(doc),
    );
    expect(missing).toEqual([]);
  });

  it('defaults apply, and numbers are read from strings', () => {
    const config = loadMediaNodeConfig({ ...required, FS_ESL_PORT: '8022' });
    expect(config).toMatchObject({
      FS_ESL_PORT: 8022,
      FS_ESL_HOST: '127.0.0.1',
      ORPHAN_TIMEOUT_MS: 120_000,
      DIAL_STRING_TEMPLATE: 'sofia/gateway/pstn/{to}',
    });
  });

  it('NODE_NAME is required', () => {
    expect(() => loadMediaNodeConfig({ REDIS_URL: required.REDIS_URL })).toThrow(
      /NODE_NAME is required/,
    );
  });

  it('a heartbeat interval longer than half the TTL is refused', () => {
    expect(() =>
      loadMediaNodeConfig({
        ...required,
        HEARTBEAT_INTERVAL_MS: '8000',
        HEARTBEAT_TTL_MS: '15000',
      }),
    ).toThrow(ConfigError);
  });

  it('an empty event socket password is refused, not replaced by a default', () => {
    expect(() => loadMediaNodeConfig({ ...required, FS_ESL_PASSWORD: '' })).toThrow(
      /FS_ESL_PASSWORD must not be empty/,
    );
  });

  it('a dial string template without {to} is refused', () => {
    expect(() =>
      loadMediaNodeConfig({ ...required, DIAL_STRING_TEMPLATE: 'sofia/gateway/pstn/12345' }),
    ).toThrow(/DIAL_STRING_TEMPLATE/);
  });
});
