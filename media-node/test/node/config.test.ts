import { ConfigError } from '@voicegw/shared';
import { describe, expect, it } from 'vitest';
import { loadMediaNodeConfig } from '../../src/index.js';

const required = { REDIS_URL: 'redis://127.0.0.1:6379', NODE_NAME: 'media-0' };

describe('media node configuration', () => {
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
