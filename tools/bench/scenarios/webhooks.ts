import { AppStore } from '@voicegw/api';
import { measureBusLatency } from '../lib/bus-latency.js';
import { startChildServer } from '../lib/child-server.js';
import { count, ms, msUp, perSec, ratio, us } from '../lib/format.js';
import type { BenchOptions } from '../lib/options.js';
import type { Cell, Check, Scenario, ScenarioResult } from '../lib/scenario.js';
import { pacedTasks, stepPercentiles, type TaskLoadResult } from '../lib/task-load.js';
import { WebhookReceiver } from '../lib/webhook-receiver.js';
import { calmly, hostNote, type HostRecord } from '../lib/rounds.js';
import { median } from '../lib/stats.js';
import {
  measureThroughput,
  WEBHOOK_APPS,
  type SenderRun,
  type ThroughputResult,
} from '../lib/webhook-throughput.js';
import { gatewayCall, gatewayHangup, inParallel, type LiveCall } from '../media-node/flows.js';
import { MediaStack } from '../media-node/stack.js';
import { busReport } from './webhooks-bus.js';

/** Target: dispatcher webhooks/s at least this share of a raw undici POST loop. */
const MIN_RATIO = 0.6;
/** Target: command POST → its command.result webhook, p99, at E2E_RATE commands/s. */
const E2E_P99_MS = 25;
const E2E_RATE = 500;
/** Live calls the paced commands go round robin over: each gets one every 400 ms (cooldown 100). */
const E2E_CALLS = 200;
const E2E_APPS = 20;
const RESULT_TIMEOUT_MS = 5000;

interface EndToEnd {
  readonly load: TaskLoadResult;
  readonly host: HostRecord;
  readonly opened: number;
  readonly openFailed: number;
}

/**
 * (b) The whole path: the api (POST `playback/stop`, an immediate command) → the media node's
 * command stream → the simulator (`uuid_break`) → `command.result` on the ingest stream → the
 * dispatcher → the receiver, timed from the POST to the webhook's arrival, at a paced rate.
 */
async function measureEndToEnd(
  options: BenchOptions,
  log: (line: string) => void,
): Promise<EndToEnd> {
  const stack = await MediaStack.start(options);
  const receiver = await WebhookReceiver.start();
  try {
    const gw = await stack.startGateway(E2E_APPS, E2E_CALLS * 2);
    const store = new AppStore(stack.redis, stack.keys);
    for (const app of gw.apps) {
      const record = await store.get(app.appId);
      if (record) await store.save({ ...record, webhook_url: `${receiver.url}/${app.appId}` });
    }
    const { host, port } = stack.redis.options;
    const dispatcher = await startChildServer({
      file: 'dispatcher-server.ts',
      env: { BENCH_REDIS_URL: `redis://${host}:${port}`, BENCH_REDIS_PREFIX: stack.keys.prefix },
      cpuProfileDir: options.cpuProfileDir,
    });
    try {
      log(`end to end: ${E2E_CALLS} live calls`);
      let app = 0;
      const opened = await inParallel(Array.from({ length: E2E_CALLS }), options.connections, () =>
        gatewayCall(gw, stack.control, gw.apps[app++ % gw.apps.length]!, () => undefined, true),
      );
      receiver.parseResults = true;
      let next = 0;
      const command = async (record: (step: string, ms: number) => void): Promise<void> => {
        const call: LiveCall = opened.ok[next++ % opened.ok.length]!;
        const t0 = performance.now();
        const reply = await gw.http.expect(
          202,
          'POST',
          `/api/v1/sessions/${call.id}/commands/playback/stop`,
          { ...call.app?.headers },
        );
        record('accepted', performance.now() - t0);
        const arrived = await receiver.result(String(reply.operation_id), RESULT_TIMEOUT_MS);
        record('webhook', arrived - t0);
      };
      log(`end to end: ${E2E_RATE} playback/stop per second, warm-up ${options.warmupSec} s`);
      await pacedTasks(E2E_RATE, options.warmupSec, command);
      log(`end to end: ${E2E_RATE} playback/stop per second, ${options.durationSec} s`);
      const measured = await calmly(() => pacedTasks(E2E_RATE, options.durationSec, command), {
        sensitivity: 'latency',
      });
      await inParallel(opened.ok, options.connections, (call) => gatewayHangup(gw, call));
      return {
        load: measured.result,
        host: measured,
        opened: opened.ok.length,
        openFailed: opened.failed,
      };
    } finally {
      await dispatcher.stop();
    }
  } finally {
    await receiver.close();
    await stack.stop();
  }
}

const COLUMNS = ['measurement', 'dispatcher', 'raw undici', 'dispatcher / raw'];

function report(t: ThroughputResult, e: EndToEnd | Error): ScenarioResult {
  const sent = throughputFigures(t);
  const rows = throughputRows(sent);
  const checks: Check[] = [
    {
      target: `dispatcher/raw webhooks/s ≥ ${MIN_RATIO}`,
      actual: ratio(sent.share),
      pass: sent.share >= MIN_RATIO,
    },
  ];
  const notes = throughputNotes(t, e);
  if (e instanceof Error) {
    notes.push(`end to end not measured: ${e.message}`);
    checks.push({
      target: `command → webhook p99 ≤ ${E2E_P99_MS} ms`,
      actual: 'not run',
      pass: false,
    });
    return { columns: COLUMNS, rows, checks, notes };
  }
  const endToEnd = endToEndFigures(e);
  rows.push(...endToEnd.rows);
  checks.push(endToEnd.check);
  notes.push(endToEnd.note);
  return {
    columns: COLUMNS,
    rows,
    checks,
    notes,
    chart: [
      { label: 'webhooks/s', unit: '/s', value: sent.dispatcher.perSec, baseline: sent.raw.perSec },
    ],
  };
}

/** The median round of the raw loop and of the dispatcher, and the median of their ratios. */
function throughputFigures(t: ThroughputResult) {
  const of = (runs: readonly SenderRun[], pick: (run: SenderRun) => number): number =>
    median(runs.map(pick));
  return {
    raw: { perSec: of(t.raw, (r) => r.perSec), cpuUs: of(t.raw, (r) => r.cpuUs) },
    dispatcher: {
      perSec: of(t.dispatcher, (r) => r.perSec),
      cpuUs: of(t.dispatcher, (r) => r.cpuUs),
      redisCpuUs: of(t.dispatcher, (r) => r.redisCpuUs),
    },
    // Each round's runs were side by side in time: the median of the rounds' ratios.
    share: median(t.dispatcher.map((run, i) => run.perSec / t.raw[i]!.perSec)),
  };
}

function throughputRows({ raw, dispatcher: d, share }: ReturnType<typeof throughputFigures>) {
  const rows: Cell[][] = [
    [
      `webhooks/s over ${WEBHOOK_APPS} apps (backlog drained)`,
      perSec(d.perSec),
      perSec(raw.perSec),
      ratio(share),
    ],
    ['CPU per webhook µs: sender process', us(d.cpuUs), us(raw.cpuUs), ratio(d.cpuUs / raw.cpuUs)],
    ['CPU per webhook µs: redis', us(d.redisCpuUs), '—', ''],
  ];
  return rows;
}

function throughputNotes(t: ThroughputResult, e: EndToEnd | Error): string[] {
  return [
    `redis ${t.redisVersion} (AOF everysec); receiver: node:http on 127.0.0.1 answering 204, in the generator process`,
    `${t.raw.length} rounds, raw and dispatcher alternately (ABBA order); every figure is the ` +
      `median round, the ratio the median of the rounds' ratios; per round, dispatcher / raw ` +
      `webhooks/s: ` +
      t.dispatcher
        .map((run, i) => {
          const other = t.raw[i]!.perSec;
          return `${perSec(run.perSec)} / ${perSec(other)} (${ratio(run.perSec / other)})`;
        })
        .join(', '),
    hostNote(e instanceof Error ? [t.host] : [t.host, e.host]),
    `dispatcher: each round, ${count(t.published)} command.result events published through the ` +
      `real publisher before a fresh dispatcher started; the first ${count(t.warmup)} are its ` +
      `warm-up, the other ${count(t.published - t.warmup)} are timed; the receiver got ` +
      `${count(t.repeats)} requests more than were published (repeats)`,
    `raw: ${WEBHOOK_APPS} requests in flight over 32 keep-alive connections (the dispatcher's one per app ` +
      `and WEBHOOK_CONNECTIONS_PER_ORIGIN), the same bodies unsigned; ` +
      `${count(t.raw.reduce((n, r) => n + r.delivered, 0))} 2xx, ` +
      `${count(t.raw.reduce((n, r) => n + r.failed, 0))} failed`,
  ];
}

/** The end-to-end rows, their check and the note on how the load ran. */
function endToEndFigures(e: EndToEnd): { rows: Cell[][]; check: Check; note: string } {
  const [a50, a99] = stepPercentiles(e.load, 'accepted');
  const [w50, w99] = stepPercentiles(e.load, 'webhook');
  return {
    rows: [
      [`at ${E2E_RATE} commands/s: POST → 202 p50 / p99 ms`, `${ms(a50)} / ${ms(a99)}`, '—', ''],
      [
        `at ${E2E_RATE} commands/s: POST → command.result webhook p50 / p99 ms`,
        `${ms(w50)} / ${ms(w99)}`,
        '—',
        '',
      ],
    ],
    check: {
      target: `command POST → its command.result webhook p99 ≤ ${E2E_P99_MS} ms at ${E2E_RATE}/s`,
      actual: `${msUp(w99)} ms, ${count(e.load.failed)} failed`,
      pass: w99 <= E2E_P99_MS && e.load.failed === 0,
    },
    note:
      `end to end: api, media node, simulator, dispatcher each in a process of its own; ${e.opened} live calls ` +
      `(${e.openFailed} did not come up) over ${E2E_APPS} apps; playback/stop (immediate) round robin; ` +
      `achieved ${perSec(e.load.perSec)} commands/s, ${count(e.load.completed)} completed, ${count(e.load.failed)} failed` +
      (e.load.errors.length > 0 ? ` (${e.load.errors.join('; ')})` : ''),
  };
}

export const webhooks: Scenario = {
  name: 'webhooks',
  title:
    `Webhooks/s of one dispatcher over ${WEBHOOK_APPS} apps against a raw undici POST loop, and ` +
    `command POST → command.result webhook latency at ${E2E_RATE} commands/s through the whole gateway`,

  async run(options, log) {
    log('throughput: redis-server, receiver, raw POST loop then the dispatcher');
    const throughput = await measureThroughput(options, log);
    log('end to end: redis-server, simulator, media node, api, dispatcher');
    const e2e = await measureEndToEnd(options, log).catch((err: unknown) =>
      err instanceof Error ? err : new Error(String(err)),
    );
    const result = report(throughput, e2e);
    if (options.buses.length === 0) return result;
    log(`bus latency: ${options.buses.map((b) => b.label).join(', ')}`);
    const bus = busReport(
      await measureBusLatency(options, log).catch((err: unknown) =>
        err instanceof Error ? err : new Error(String(err)),
      ),
    );
    return {
      ...result,
      rows: [...result.rows, ...bus.rows],
      notes: [...result.notes, ...bus.notes],
    };
  },
};
