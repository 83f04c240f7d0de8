import { describe, expect, it } from 'vitest';
import { loadSimConfig } from '../src/config.js';

describe('simulator configuration', () => {
  it('defaults apply, an empty value counts as unset, and ports are read from strings', () => {
    expect(loadSimConfig({ SIM_ESL_PORT: '0', SIM_HOSTNAME: '' })).toEqual({
      SIM_ESL_HOST: '127.0.0.1',
      SIM_ESL_PORT: 0,
      SIM_ESL_PASSWORD: 'ClueCon',
      SIM_HTTP_HOST: '127.0.0.1',
      SIM_HTTP_PORT: 8090,
      SIM_SIP_HOST: '127.0.0.1',
      SIM_SIP_PORT: 5080,
      SIM_HOSTNAME: 'sim-1',
      SIM_IPV4: '127.0.0.1',
      SIM_GATEWAYS: 'pstn',
      LOG_LEVEL: 'info',
    });
  });

  it('refuses a bad value, naming the variable', () => {
    expect(() => loadSimConfig({ SIM_HTTP_PORT: '70000' })).toThrow(
      'SIM_HTTP_PORT must be <= 65535',
    );
    expect(() => loadSimConfig({ SIM_ESL_PASSWORD: 'two words' })).toThrow(/SIM_ESL_PASSWORD/);
    expect(() => loadSimConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
  });
});
