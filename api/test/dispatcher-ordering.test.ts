import { shardOf } from '@voicegw/shared/bus';
import { afterEach, describe, expect, it } from 'vitest';
import { range, Receiver, sequence, TestGateway } from './dispatcher-helpers.js';

let gateway: TestGateway;
let receiver: Receiver;

const setUp = async (): Promise<void> => {
  gateway = new TestGateway();
  receiver = await new Receiver().start();
};
afterEach(async () => {
  await gateway.close();
  await receiver.close();
});

const metric = async (port: number, name: string): Promise<number> => {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return Number(new RegExp(`^${name}\\{[^}]*\\} (\\d+)`, 'm').exec(text)?.[1] ?? NaN);
};

describe('per-app ordering', () => {
  it('100 apps × 100 events reach each webhook once, in publish order', async () => {
    await setUp();
    const apps = range(100).map((i) => `load-${i}`);
    await Promise.all(
      apps.map((app_id) => gateway.createApp({ app_id, webhook_url: receiver.url(app_id) })),
    );
    // Two dispatchers share the shards, as they would in production.
    await gateway.dispatcher({ EVENT_SHARDS: '8' });
    await gateway.dispatcher({ EVENT_SHARDS: '8' });

    const started = Date.now();
    const publishes: Promise<unknown>[] = [];
    for (const seq of range(100))
      for (const app of apps) publishes.push(gateway.publishSeq(app, seq));
    await Promise.all(publishes);
    await receiver.until(
      () => apps.every((app) => receiver.of(app).length >= 100),
      45_000,
      '10,000 webhooks',
    );
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `100 apps × 100 events: all delivered ${seconds.toFixed(2)} s after publishing began`,
    );

    for (const app of apps) {
      expect(sequence(receiver.of(app)), app).toEqual(range(100));
      expect(receiver.of(app), app).toHaveLength(100);
    }
  }, 60_000);

  it('a receiver down for a while gets everything afterwards, in order, and other apps are not held up', async () => {
    await setUp();
    const down = await new Receiver().start();
    const port = down.port;
    await gateway.createApp({ app_id: 'down', webhook_url: down.url('down') });
    await gateway.createApp({ app_id: 'up', webhook_url: receiver.url('up') });
    await down.close(); // connections are refused from now on
    const dispatcher = await gateway.dispatcher({
      WEBHOOK_RETRY_SCHEDULE: '0,100ms,200ms,300ms,300ms,300ms,300ms,300ms,300ms,300ms',
    });

    for (const seq of range(30)) {
      await gateway.publishSeq('down', seq);
      await gateway.publishSeq('up', seq);
    }
    await receiver.until(() => receiver.of('up').length === 30, 10_000, 'the healthy app');
    expect(sequence(receiver.of('up'))).toEqual(range(30));
    // Meanwhile the failing app's events wait in its retry lane, acknowledged on the bus.
    await expect.poll(() => metric(dispatcher.metricsPort, 'voicegw_webhook_lane_depth')).toBe(30);

    const back = await new Receiver().start(port);
    try {
      await back.until(() => back.of('down').length === 30, 10_000, 'the recovered app');
      expect(sequence(back.of('down'))).toEqual(range(30));
      await expect.poll(() => metric(dispatcher.metricsPort, 'voicegw_webhook_lane_depth')).toBe(0);
    } finally {
      await back.close();
    }
  });

  it("a slow webhook's backlog is parked in its lane, in order, without holding up its shard", async () => {
    await setUp();
    // Two apps on the same shard, whose buffer is small: the slow app's backlog must move to
    // its lane so that the quick app's events can be read at all.
    const quick =
      range(100)
        .map((i) => `quick-${i}`)
        .find((id) => shardOf(id, 4) === shardOf('slow', 4)) ?? '';
    await gateway.createApp({ app_id: 'slow', webhook_url: receiver.url('slow') });
    await gateway.createApp({ app_id: quick, webhook_url: receiver.url(quick) });
    receiver.respond('slow', () => ({ status: 200, delayMs: 100 }));
    const dispatcher = await gateway.dispatcher({ WEBHOOK_QUEUE_PER_APP: '3', EVENT_BUFFER: '10' });

    for (const seq of range(30)) await gateway.publishSeq('slow', seq);
    for (const seq of range(30)) await gateway.publishSeq(quick, seq);
    await receiver.until(() => receiver.of(quick).length === 30, 10_000, 'the quick app');
    expect(receiver.of('slow').length).toBeLessThan(30);
    expect(await metric(dispatcher.metricsPort, 'voicegw_webhook_lane_depth')).toBeGreaterThan(0);

    await receiver.until(() => receiver.of('slow').length === 30, 10_000, 'the slow app');
    expect(sequence(receiver.of('slow'))).toEqual(range(30));
    expect(sequence(receiver.of(quick))).toEqual(range(30));
    expect(receiver.of('slow')).toHaveLength(30);
  });
});
