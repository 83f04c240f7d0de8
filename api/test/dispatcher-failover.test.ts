import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { range, sequence, useGateway, useReceiver } from './dispatcher-helpers.js';

const ENTRYPOINT = fileURLToPath(new URL('../src/dispatcher.ts', import.meta.url));
const LEASE_TTL_MS = 1500;

/** A dispatcher child process whose JSON log lines are kept. */
class DispatcherProcess {
  readonly lines: Record<string, unknown>[] = [];
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  private waiters: { match: (line: Record<string, unknown>) => boolean; resolve: () => void }[] =
    [];

  constructor(prefix: string) {
    this.child = spawn(process.execPath, ['--import', 'tsx', ENTRYPOINT], {
      env: {
        ...process.env,
        REDIS_URL: inject('redisUrl'),
        REDIS_PREFIX: prefix,
        LOG_LEVEL: 'info',
        LOG_PRETTY: 'false',
        DISPATCHER_METRICS_PORT: '0',
        DISPATCHER_HOST: '127.0.0.1',
        ALLOW_LOCALHOST_WEBHOOKS: 'true',
        EVENT_SHARDS: '4',
        EVENT_LEASE_TTL_MS: String(LEASE_TTL_MS),
        LANE_POLL_INTERVAL_MS: '25',
        WEBHOOK_RETRY_SCHEDULE: '0,50ms,100ms,200ms,400ms',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    createInterface({ input: this.child.stdout! }).on('line', (text) => {
      try {
        const line = { ...(JSON.parse(text) as Record<string, unknown>), at: Date.now() };
        this.lines.push(line);
        const ready = this.waiters.filter((w) => w.match(line));
        this.waiters = this.waiters.filter((w) => !ready.includes(w));
        for (const waiter of ready) waiter.resolve();
      } catch {
        // not a log line
      }
    });
    this.child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  }

  /** Shards it reads now, from its own log. */
  shards(): Set<string> {
    const owned = new Set<string>();
    for (const line of this.lines) {
      const shards = (line.shards ?? []) as string[];
      if (line.msg === 'reading shards') for (const shard of shards) owned.add(shard);
      if (line.msg === 'handing shards back') for (const shard of shards) owned.delete(shard);
    }
    return owned;
  }

  waitFor(match: (line: Record<string, unknown>) => boolean, timeoutMs = 15_000): Promise<void> {
    if (this.lines.some(match)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('log line not seen in time')), timeoutMs);
      this.waiters.push({
        match,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    await this.exited;
  }
}

const children: DispatcherProcess[] = [];

const receiver = useReceiver();
const gateway = useGateway();
afterAll(() => Promise.all(children.map((c) => c.stop())));

describe('dispatcher failover', () => {
  it('kill -9 of a dispatcher mid-stream: another takes its shards over within seconds, nothing is lost, duplicates keep their webhook-id', async () => {
    const apps = range(20).map((i) => `fo-${i}`);
    await Promise.all(
      apps.map((app_id) => gateway.createApp({ app_id, webhook_url: receiver.url(app_id) })),
    );
    for (const app of apps) receiver.respond(app, () => ({ status: 200, delayMs: 5 }));

    const [a, b] = [new DispatcherProcess(gateway.prefix), new DispatcherProcess(gateway.prefix)];
    children.push(a, b);
    await Promise.all([a, b].map((d) => d.waitFor((l) => l.msg === 'dispatcher started')));
    // Two live dispatchers split the four shards between them.
    await expect
      .poll(() => a.shards().size === 2 && b.shards().size === 2, { timeout: 15_000 })
      .toBe(true);

    // Publish 100 events per app over about two seconds, and kill one dispatcher on the way.
    let killedAt = 0;
    let deliveredAtKill = 0;
    const victim = a;
    const survivor = b;
    const victimShards = [...victim.shards()];
    for (const seq of range(100)) {
      await Promise.all(apps.map((app) => gateway.publishSeq(app, seq)));
      if (seq === 40) {
        victim.child.kill('SIGKILL');
        killedAt = Date.now();
        deliveredAtKill = receiver.requests.length;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await victim.exited;
    // Killed mid-stream: some events had been delivered, most had not.
    expect(deliveredAtKill).toBeGreaterThan(0);
    expect(deliveredAtKill).toBeLessThan(1000);

    // The survivor reads the victim's shards within a lease TTL and a couple of balancing ticks.
    await Promise.all(
      victimShards.map((shard) =>
        survivor.waitFor(
          (l) =>
            l.msg === 'reading shards' &&
            (l.shards as string[]).includes(shard) &&
            Number(l.at) >= killedAt,
        ),
      ),
    );
    const takeover = Math.max(
      ...victimShards.map((shard) => {
        const line = survivor.lines.find(
          (l) =>
            l.msg === 'reading shards' &&
            (l.shards as string[]).includes(shard) &&
            Number(l.at) >= killedAt,
        );
        return Number(line?.at ?? Infinity) - killedAt;
      }),
    );
    console.log(`shards of the killed dispatcher taken over after ${takeover} ms`);
    expect(takeover).toBeLessThan(LEASE_TTL_MS + 2000);

    await receiver.until(
      () => apps.every((app) => sequence(receiver.of(app)).length === 100),
      20_000,
    );
    let duplicates = 0;
    for (const app of apps) {
      const requests = receiver.of(app);
      expect(sequence(requests), app).toEqual(range(100));
      // A repeated delivery is the same event: same sequence number, same webhook-id.
      const idsBySeq = new Map<number, Set<string>>();
      for (const r of requests) {
        const seq = (r.json as unknown as { duration_ms: number }).duration_ms;
        idsBySeq.set(seq, (idsBySeq.get(seq) ?? new Set()).add(String(r.headers['webhook-id'])));
      }
      expect(
        [...idsBySeq.values()].every((ids) => ids.size === 1),
        app,
      ).toBe(true);
      duplicates += requests.length - 100;
    }
    console.log(`${duplicates} duplicate deliveries after the kill (same webhook-id)`);
  }, 60_000);
});
