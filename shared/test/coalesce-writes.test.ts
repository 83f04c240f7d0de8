import { randomUUID } from 'node:crypto';
import { Socket } from 'node:net';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createRedis } from '../src/index.js';
import { MAX_HOLD_MS } from '../src/net/coalesce-writes.js';
import { atEndOfTurn } from '../src/net/end-of-turn.js';

// What a socket hands the kernel: one _write (one chunk) or one _writev (several) per syscall.
const handleWrite = vi.spyOn(Socket.prototype, '_write');
const handleWritev = vi.spyOn(Socket.prototype, '_writev');
const setNoDelay = vi.spyOn(Socket.prototype, 'setNoDelay');
// The clock the coalescer reads to bound how long it holds a write: only a test moves it, so a
// slow or preempted test process does not split what the tests expect in one write.
let clock = 0;
vi.spyOn(performance, 'now').mockImplementation(() => clock);
/** Flushed at the end of each turn (the media node's), and after each callback (the default). */
let redis: Redis;
let byCallback: Redis;

/** How many times the spy ran on this socket. */
const on = (spy: { mock: { contexts: unknown[] } }, socket: Socket): number =>
  spy.mock.contexts.filter((context) => context === socket).length;

/** A fresh key, and how many writes `connection`'s socket has handed the kernel since the call. */
function writesFrom(connection: Redis): { key: string; sent: () => number } {
  const socket = connection.stream;
  const total = (): number => on(handleWrite, socket) + on(handleWritev, socket);
  const start = total();
  return { key: `coalesce:${randomUUID()}`, sent: () => total() - start };
}

/**
 * One INCR from each of `n` immediates queued together: they run in one check phase, each a
 * callback of its own with the ticks and promise jobs it started drained after it, as the socket
 * reads of one poll are. Not timers: each setTimeout reads the clock afresh, so five set in one
 * go can fall due a millisecond apart, in two turns (1 run in 60 here). Resolves with the replies.
 */
function incrFromCallbacks(connection: Redis, key: string, n: number): Promise<number[]> {
  return new Promise<Promise<number>[]>((resolve) => {
    const issued: Promise<number>[] = [];
    for (let i = 0; i < n; i++) {
      setImmediate(() => {
        issued.push(connection.incr(key));
        if (issued.length === n) resolve(issued);
      });
    }
  }).then((issued) => Promise.all(issued));
}

beforeAll(async () => {
  const endpoint = { kind: 'url', url: inject('redisUrl') } as const;
  redis = createRedis(endpoint, { name: 'coalesce-test', flush: 'turn' });
  byCallback = createRedis(endpoint, { name: 'coalesce-test:callback' });
  await Promise.all([redis.ping(), byCallback.ping()]);
});
afterAll(async () => {
  await Promise.all([redis.quit(), byCallback.quit()]);
  vi.restoreAllMocks();
});

describe('createRedis connections flushed by turn', () => {
  it('have Nagle off (ioredis noDelay) and send the commands of one turn in one write', async () => {
    const socket = redis.stream;
    expect(setNoDelay.mock.calls.filter((_, i) => setNoDelay.mock.contexts[i] === socket)).toEqual([
      [true],
    ]);
    const key = `coalesce:${randomUUID()}`;
    const [writes, writevs] = [on(handleWrite, socket), on(handleWritev, socket)];
    const replies = await Promise.all(Array.from({ length: 20 }, () => redis.incr(key)));
    expect(replies).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(on(handleWrite, socket) - writes).toBe(0);
    expect(on(handleWritev, socket) - writevs).toBe(1);
    await redis.del(key);
  });

  it('sends what separate callbacks of one turn write in one write, not one write each', async () => {
    // A flush after each callback (process.nextTick) makes five: see the last test.
    const socket = redis.stream;
    const key = `coalesce:${randomUUID()}`;
    const [writes, writevs] = [on(handleWrite, socket), on(handleWritev, socket)];
    expect(await incrFromCallbacks(redis, key, 5)).toEqual([1, 2, 3, 4, 5]);
    expect(on(handleWrite, socket) - writes).toBe(0);
    expect(on(handleWritev, socket) - writevs).toBe(1);
    await redis.del(key);
  });

  it('sends what the end of a turn writes (a batch flushed there) in that turn, not the next', async () => {
    // An uncork of its own setImmediate, scheduled from the check phase, would wait for the next
    // loop iteration: after the immediate below, and after the next poll's callbacks.
    const { key, sent } = writesFrom(redis);
    let reply: Promise<number> | undefined;
    const sentThisTurn = await new Promise<number>((resolve) => {
      atEndOfTurn(() => {
        setImmediate(() => resolve(sent()));
        reply = redis.incr(key);
      });
    });
    expect(sentThisTurn).toBe(1);
    expect(await reply).toBe(1);
    await redis.del(key);
  });
});

describe('a coalesced write', () => {
  it('is not held longer than MAX_HOLD_MS: a later write of a busy turn takes it out', async () => {
    const { key, sent } = writesFrom(redis);
    const replies: Promise<number>[] = [];
    const sentThisTurn = await new Promise<number>((resolve) => {
      setImmediate(() => {
        replies.push(redis.incr(key));
        clock += MAX_HOLD_MS * 2;
        replies.push(redis.incr(key)); // past the bound: out with the first
        replies.push(redis.incr(key)); // held again, until the end of the turn
        setImmediate(() => resolve(sent()));
      });
    });
    expect(sentThisTurn).toBe(2);
    expect(await Promise.all(replies)).toEqual([1, 2, 3]);
    await redis.del(key);
  });
});

describe('createRedis connections flushed by callback (the default)', () => {
  it('send the commands of one callback in one write, and those of separate callbacks apart', async () => {
    const { key, sent } = writesFrom(byCallback);
    expect(await Promise.all(Array.from({ length: 20 }, () => byCallback.incr(key)))).toHaveLength(
      20,
    );
    expect(sent()).toBe(1);

    const between = sent();
    expect(await incrFromCallbacks(byCallback, key, 5)).toEqual([21, 22, 23, 24, 25]);
    expect(sent() - between).toBe(5);
    await byCallback.del(key);
  });
});
