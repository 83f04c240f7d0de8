import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { HeartbeatAbsence } from '../src/cluster/absence.js';

/** When a sweeper takes a node for dead: missing for a full grace on an unbroken connection. */
const redis = new Redis(inject('redisUrl'));
const admin = new Redis(inject('redisUrl'));
afterAll(() => [redis, admin].forEach((c) => c.disconnect()));
const GRACE = 1000;
const missing = (...prefixes: string[]) => new Map(prefixes.map((p) => [p, false]));

describe('HeartbeatAbsence', () => {
  it('takes a node for dead only once its heartbeat was missing on every look for the grace', () => {
    const absence = new HeartbeatAbsence(redis, GRACE);
    expect(absence.observe(missing('aaaaa'), 0)).toEqual([]);
    expect(absence.observe(missing('aaaaa'), 999)).toEqual([]);
    expect(absence.observe(missing('aaaaa'), 1000)).toEqual(['aaaaa']);
    // One beat seen starts the count again.
    expect(absence.observe(new Map([['aaaaa', true]]), 1100)).toEqual([]);
    expect(absence.observe(missing('aaaaa'), 1200)).toEqual([]);
    expect(absence.observe(missing('aaaaa'), 2199)).toEqual([]);
    expect(absence.observe(missing('aaaaa'), 2200)).toEqual(['aaaaa']);
    absence.close();
  });

  it('forgets what it saw when its own connection drops: Redis may have lost every heartbeat', async () => {
    const absence = new HeartbeatAbsence(redis, GRACE);
    expect(absence.observe(missing('bbbbb'), 0)).toEqual([]);
    const id = String(await redis.client('ID'));
    const closed = new Promise((resolve) => redis.once('close', resolve));
    await admin.client('KILL', 'ID', id);
    await closed;
    expect(absence.observe(missing('bbbbb'), 1500)).toEqual([]);
    expect(absence.observe(missing('bbbbb'), 2500)).toEqual(['bbbbb']);
    absence.close();
  });
});
