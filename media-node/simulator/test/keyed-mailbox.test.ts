import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KeyedMailbox } from '../src/client/mailbox.js';

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('KeyedMailbox', () => {
  it('hands a value to its waiter, or keeps it for 30 s for one to come', async () => {
    const box = new KeyedMailbox<string>();
    const waiting = box.once('a', 1000);
    box.deliver(['a', 'b'], 'first');
    await expect(waiting).resolves.toBe('first');
    await expect(box.once('b', 1000)).resolves.toBe('first');

    box.deliver(['c'], 'old');
    vi.advanceTimersByTime(30_000);
    box.deliver(['d'], 'new'); // delivering drops what has waited 30 s
    await expect(box.once('d', 1000)).resolves.toBe('new');
    const old = box.once('c', 1000);
    vi.advanceTimersByTime(1000);
    await expect(old).rejects.toThrow('no c within 1000 ms');
  });

  it('gives a key to its latest waiter; the earlier one times out alone', async () => {
    const box = new KeyedMailbox<string>();
    const earlier = box.once('a', 100);
    const later = box.once('a', 200);
    vi.advanceTimersByTime(100);
    await expect(earlier).rejects.toThrow('no a within 100 ms');
    box.deliver(['a'], 'value');
    await expect(later).resolves.toBe('value');
  });
});
