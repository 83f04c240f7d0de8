import { describe, expect, it } from 'vitest';
import { Limit } from '../src/webhooks/limit.js';

/** A task that finishes when `finish` is called, recording how many ran at once. */
function gate(log: string[], name: string, running: { now: number; most: number }) {
  let finish: () => void = () => undefined;
  const task = (): Promise<string> => {
    log.push(`start ${name}`);
    running.now++;
    running.most = Math.max(running.most, running.now);
    return new Promise<string>((resolve) => {
      finish = () => {
        running.now--;
        resolve(name);
      };
    });
  };
  return { task, finish: () => finish() };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('Limit', () => {
  it('runs at most `size` tasks at once, the rest in arrival order', async () => {
    const limit = new Limit(2);
    const log: string[] = [];
    const running = { now: 0, most: 0 };
    const gates = ['a', 'b', 'c', 'd'].map((name) => gate(log, name, running));
    const results = gates.map((g) => limit.run(g.task));
    await tick();
    expect(log).toEqual(['start a', 'start b']);
    gates[1]?.finish();
    await tick();
    expect(log).toEqual(['start a', 'start b', 'start c']);
    gates[0]?.finish();
    await tick();
    gates[2]?.finish();
    gates[3]?.finish();
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd']);
    expect(log).toEqual(['start a', 'start b', 'start c', 'start d']);
    expect(running.most).toBe(2);
  });

  it('frees the place of a task that fails or throws', async () => {
    const limit = new Limit(1);
    await expect(limit.run(() => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    await expect(
      limit.run(() => {
        throw new Error('thrown');
      }),
    ).rejects.toThrow('thrown');
    expect(await limit.run(() => Promise.resolve('next'))).toBe('next');
  });
});
