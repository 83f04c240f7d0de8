import { createLogger } from '@voicegw/shared';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebhookDispatcher, type DispatcherContext } from '../src/webhooks/dispatcher.js';

/**
 * When the dispatcher polls its retry lanes: the scheduling alone, against a stand-in for the
 * due sets whose answer the test releases (what a poll finds is tested on Redis elsewhere).
 */
function dispatcherWithLanes() {
  const answers: ((waiting: boolean) => void)[] = [];
  const anyWaiting = vi.fn(() => new Promise<boolean>((resolve) => answers.push(resolve)));
  const ctx = {
    lanes: { anyWaiting },
    log: createLogger({ name: 'poll-test', level: 'silent' }),
    pollIntervalMs: 250,
  } as unknown as DispatcherContext;
  return { dispatcher: new WebhookDispatcher(ctx), anyWaiting, answers };
}

afterEach(() => vi.useRealTimers());

describe('retry-lane polling', () => {
  it('polls again at once when woken during a poll, rather than after the idle interval', async () => {
    vi.useFakeTimers();
    const { dispatcher, anyWaiting, answers } = dispatcherWithLanes();
    await vi.advanceTimersByTimeAsync(250);
    expect(anyWaiting).toHaveBeenCalledTimes(1);

    // A replay is announced while that poll's read is in flight: the read may predate it.
    dispatcher.wake();
    await vi.advanceTimersByTimeAsync(0);
    answers[0]?.(false);
    await vi.advanceTimersByTimeAsync(0);
    expect(anyWaiting).toHaveBeenCalledTimes(2);

    // With nothing waiting, the next poll is the idle one, 30 s on.
    answers[1]?.(false);
    await vi.advanceTimersByTimeAsync(29_000);
    expect(anyWaiting).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(anyWaiting).toHaveBeenCalledTimes(3);
    dispatcher.stop();
  });
});
