import { createRedis, RedisKeys, RedisStreamPublisher, type EventPayload } from '@voicegw/shared';
import { spawnRedis, type SpawnedRedis } from '@voicegw/tools';
import type { Redis } from 'ioredis';
import { count, ms, perSec, ratio } from '../lib/format.js';
import { redisCpuMs } from '../lib/redis-info.js';
import { hostNote, rotate } from '../lib/rounds.js';
import type { Cell, Scenario } from '../lib/scenario.js';
import { LatencySamples, median } from '../lib/stats.js';

/**
 * What waiting for a replica would cost event appends: the media node's publisher (XADD on one
 * connection that sends a turn's commands in one write) against a primary with one replica on
 * loopback, as it is, with `WAIT 1` after each append, and with one `WAIT 1` per event-loop turn
 * for every append of the turn; then the per-turn WAIT with the replica gone.
 */
const MODES = ['no WAIT', 'WAIT 1 after each append', 'WAIT 1 per turn'] as const;
type Mode = (typeof MODES)[number];

/** The WAIT timeout: how long an append waits for a replica that does not answer. */
const WAIT_TIMEOUT_MS = 100;
const REPLICA_GONE_SEC = 3;
const PREFIX = 'benchwait';

interface Run {
  readonly appends: number;
  readonly seconds: number;
  readonly latency: LatencySamples;
  readonly redisCpuMs: number;
  /** WAITs that returned before a replica had the writes (their timeout passed). */
  readonly unreplicated: number;
}

/** One WAIT for every caller of the same event-loop turn, sent after the turn's appends. */
class TurnWait {
  private pending: Promise<number> | undefined;

  constructor(private readonly redis: Redis) {}

  next(): Promise<number> {
    this.pending ??= new Promise<number>((resolve, reject) =>
      setImmediate(() => {
        this.pending = undefined;
        this.redis.wait(1, WAIT_TIMEOUT_MS).then(resolve, reject);
      }),
    );
    return this.pending;
  }
}

/** `writers` sessions, each publishing event after event, for `seconds`. */
async function measure(
  redis: Redis,
  primary: Redis,
  mode: Mode,
  writers: number,
  seconds: number,
): Promise<Run> {
  const publisher = new RedisStreamPublisher(redis, new RedisKeys(PREFIX));
  const turn = new TurnWait(redis);
  const latency = new LatencySamples();
  let appends = 0;
  let unreplicated = 0;
  const cpuBefore = await redisCpuMs(primary);
  const started = performance.now();
  const until = started + seconds * 1000;
  const writer = async (n: number): Promise<void> => {
    const payload = { event: 'dtmf', session_uuid: `bench-${n}`, digit: '5', duration_ms: 100 };
    while (performance.now() < until) {
      const t0 = performance.now();
      // The XADD is queued at once; a WAIT queued after it on the connection covers it.
      const appended = publisher.publish('bench-app', payload as EventPayload<'dtmf'>);
      const replicas =
        mode === 'WAIT 1 per turn'
          ? turn.next()
          : mode === 'WAIT 1 after each append'
            ? redis.wait(1, WAIT_TIMEOUT_MS)
            : Promise.resolve(1);
      const [, acked] = await Promise.all([appended, replicas]);
      latency.add(performance.now() - t0);
      appends++;
      if (acked < 1) unreplicated++;
    }
  };
  await Promise.all(Array.from({ length: writers }, (_, n) => writer(n)));
  const elapsed = (performance.now() - started) / 1000;
  const redisCpu = (await redisCpuMs(primary)) - cpuBefore;
  await primary.del(new RedisKeys(PREFIX).events());
  return { appends, seconds: elapsed, latency, redisCpuMs: redisCpu, unreplicated };
}

export const replicaWait: Scenario = {
  name: 'replica-wait',
  title:
    "Event appends (the media node's publisher) to a primary with one replica: as they are, " +
    'against waiting for the replica (WAIT 1) after each append or once per turn',

  async run(options, log) {
    const writers = options.connections;
    let primaryServer: SpawnedRedis | undefined;
    let replicaServer: SpawnedRedis | undefined;
    const clients: Redis[] = [];
    try {
      primaryServer = await spawnRedis({ appendOnly: true });
      replicaServer = await spawnRedis({ appendOnly: true, replicaOf: primaryServer.port });
      const endpoint = { kind: 'url', url: primaryServer.url } as const;
      const redis = createRedis(endpoint, { name: 'bench:publisher', flush: 'turn' });
      const primary = createRedis(endpoint, { name: 'bench:info' });
      clients.push(redis, primary);
      while ((await primary.wait(1, 1000)) < 1) log('waiting for the replica to sync');

      log(`warm-up: ${options.warmupSec} s`);
      await measure(redis, primary, 'no WAIT', writers, options.warmupSec);
      log(`${options.rounds} rounds of ${MODES.join(', ')}, ${options.durationSec} s each`);
      const rotated = await rotate(
        options.rounds,
        MODES,
        (mode) => measure(redis, primary, mode, writers, options.durationSec),
        { sensitivity: 'latency' },
      );
      const rate = (run: Run): number => run.appends / run.seconds;
      // The machine drifts from minute to minute: a mode is compared with no WAIT of its round.
      const [base = [], ...waiting] = rotated.runs;
      const ratios = [
        1,
        ...waiting.map((runs) => median(runs.map((run, round) => rate(run) / rate(base[round]!)))),
      ];
      const medianRun = (runs: readonly Run[]): Run => {
        const middle = median(runs.map(rate));
        return runs.reduce((best, r) =>
          Math.abs(rate(r) - middle) < Math.abs(rate(best) - middle) ? r : best,
        );
      };
      const chosen = rotated.runs.map(medianRun);

      log(`the replica gone: per-turn WAIT for ${REPLICA_GONE_SEC} s`);
      await replicaServer.kill();
      const gone = await measure(redis, primary, 'WAIT 1 per turn', writers, REPLICA_GONE_SEC);

      const row = (name: string, run: Run, ofNoWait: number): Cell[] => {
        const [p50 = Number.NaN, p99 = Number.NaN] = run.latency.percentiles(0.5, 0.99);
        return [
          name,
          perSec(rate(run)),
          ratio(ofNoWait),
          ms(p50),
          ms(p99),
          ms((run.redisCpuMs * 1000) / Math.max(1, run.appends)),
          count(run.unreplicated),
        ];
      };
      return {
        columns: [
          `${writers} writers, one connection`,
          'appends/s',
          'of no WAIT',
          'p50 ms',
          'p99 ms',
          'primary CPU µs per append',
          'appends not on the replica',
        ],
        rows: [
          ...MODES.map((mode, i) => row(mode, chosen[i]!, ratios[i]!)),
          row('WAIT 1 per turn, replica gone', gone, rate(gone) / rate(chosen[0]!)),
        ],
        checks: [],
        notes: [
          `redis-server ${primaryServer.port} (AOF everysec) with one replica on loopback; ` +
            `${writers} sessions publish dtmf events back to back through RedisStreamPublisher ` +
            `on one createRedis connection (flush: turn), as the media node does; an append ` +
            `counts once its XADD and, with WAIT, the WAIT answered; WAIT timeout ` +
            `${WAIT_TIMEOUT_MS} ms`,
          `${options.rounds} rounds in rotated order, ${options.durationSec} s each; a row is ` +
            `its mode's median round by rate, "of no WAIT" the median of the rounds' ratios to ` +
            `no WAIT in the same round; rates of every round: ` +
            MODES.map(
              (mode, i) => `${mode} ${rotated.runs[i]!.map((r) => perSec(rate(r))).join(' / ')}`,
            ).join('; '),
          `replica gone: killed, then ${REPLICA_GONE_SEC} s of per-turn WAITs, each returning ` +
            `after its timeout`,
          hostNote([rotated]),
        ],
      };
    } finally {
      for (const client of clients) client.disconnect();
      await replicaServer?.stop();
      await primaryServer?.stop();
    }
  },
};
