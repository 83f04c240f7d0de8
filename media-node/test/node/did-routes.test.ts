import { describe, expect, it } from 'vitest';
import { DidRoutes } from '../../src/session/did-routes.js';

describe('DidRoutes', () => {
  it('answers what it learned last, and forgets a DID that routes nowhere', () => {
    const routes = new DidRoutes();
    routes.learn('0731111111', 'app_a');
    routes.learn('0731111111', 'app_b');
    expect(routes.get('0731111111')).toBe('app_b');
    routes.learn('0731111111', undefined);
    expect(routes.get('0731111111')).toBeUndefined();
  });

  it('holds 10,000 DIDs, forgetting the one learned longest ago', () => {
    const routes = new DidRoutes();
    const did = (i: number) => `07${String(i).padStart(8, '0')}`;
    for (let i = 0; i < 10_000; i++) routes.learn(did(i), `app_${i}`);
    routes.learn(did(0), 'app_0'); // learned again: now the newest
    routes.learn(did(10_000), 'app_10000');
    expect(routes.get(did(0))).toBe('app_0');
    expect(routes.get(did(1))).toBeUndefined();
    expect(routes.get(did(2))).toBe('app_2');
    expect(routes.get(did(10_000))).toBe('app_10000');
  });
});
