import { describe, expect, it } from 'vitest';
import { LatencySamples } from '../lib/stats.js';
import type { TaskLoadResult } from '../lib/task-load.js';
import { bridgeReport, type BridgeSide } from '../media-node/bridge-report.js';
import { PAIR_WAIT } from '../media-node/bridges.js';
import type { PerProcess } from '../media-node/stack.js';

const perProcess = (n: number): PerProcess<number> => ({
  simulator: n,
  node: n,
  api: n,
  dispatcher: n,
  redis: n,
  generator: n,
});

const samplesOf = (values: readonly number[]): LatencySamples => {
  const samples = new LatencySamples();
  for (const value of values) samples.add(value);
  return samples;
};

/**
 * A side whose every bridge took `bridgedMs` to be confirmed; `failed` bridges failed; `waitedMs`,
 * the waits for a pair.
 */
function side(bridgedMs: number[], failed = 0, waitedMs: number[] = []): BridgeSide {
  const load: TaskLoadResult = {
    completed: bridgedMs.length,
    failed,
    seconds: 1,
    perSec: bridgedMs.length,
    errors: failed > 0 ? ['no call.bridged within 10000 ms'] : [],
    steps: new Map([
      ['bridged', samplesOf(bridgedMs)],
      ...(waitedMs.length > 0 ? [[PAIR_WAIT, samplesOf(waitedMs)] as const] : []),
    ]),
  };
  return {
    measured: {
      load,
      cpu: perProcess(100),
      cpuWait: perProcess(10),
      host: { sensitivity: 'latency', taken: [{ steal: 0, paused: 0 }], repeated: 0, disturbed: 0 },
    },
    opened: { ok: [], failed: 0, errors: [] },
    pairs: 250,
  };
}

const report = (gateway: BridgeSide, bare: BridgeSide) =>
  bridgeReport({ rate: 100, gateway, bare, redisVersion: '7', eventsRead: 0 });

/** 100 samples whose p50 is `p50` and p99 is `p99`. */
const samples = (p50: number, p99: number): number[] =>
  Array.from({ length: 100 }, (_, i) => (i < 50 ? p50 : i < 99 ? p99 : p99 + 100));

describe('bridgeReport', () => {
  it('checks the p50 against the bare socket’s plus 3 ms, the bound included', () => {
    const [target] = report(side(samples(25, 40)), side(samples(22, 30))).checks;
    expect(target).toMatchObject({ pass: true, actual: '+3.00 ms (25.00 − 22.00)' });
    const [missed] = report(side(samples(25.5, 40)), side(samples(22, 30))).checks;
    expect(missed).toMatchObject({ pass: false, actual: '+3.50 ms (25.50 − 22.00)' });
  });

  it('gives p50 and p99 of each side and their differences, signed', () => {
    const { rows } = report(side(samples(21, 35)), side(samples(22, 30)));
    expect(rows[0]!.slice(1)).toEqual(['21.00', '22.00', '-1.00']);
    expect(rows[1]!.slice(1)).toEqual(['35.00', '30.00', '+5.00']);
  });

  it('misses when a bridge failed or nothing was measured', () => {
    const failed = report(side(samples(22, 30), 1), side(samples(22, 30)));
    expect(failed.checks.map((c) => c.pass)).toEqual([true, false]);
    expect(failed.notes.at(-1)).toContain('no call.bridged');
    const empty = report(side([]), side(samples(22, 30)));
    expect(empty.checks[0]!.pass).toBe(false);
  });

  it('breaks a sampled bridge down hop by hop, the bridge itself beside the bare socket’s', () => {
    // Stamps 1 ms apart, but FreeSWITCH's part (started → confirmed): 20 ms.
    const stamps = (at: number) => ({
      'bench.sent': at,
      'api.received': at + 1,
      'api.appended': at + 2,
      'node.read': at + 3,
      'node.started': at + 4,
      'node.accepted': at + 4,
      'node.confirmed': at + 24,
      'node.result': at + 25,
      'node.published': at + 26,
      'bench.read': at + 27,
    });
    const hops = { a: stamps(0), b: stamps(100), unstamped: { 'node.read': 5 } };
    const { rows } = bridgeReport({
      rate: 100,
      gateway: side(samples(25, 40)),
      bare: side(samples(22, 30)),
      redisVersion: '7',
      eventsRead: 0,
      hops,
    });
    const at = rows.findIndex((r) => String(r[0]).includes('where a bridge'));
    expect(rows[at]![0]).toContain('(2 sampled)');
    const bridged = rows.slice(at).find((r) => String(r[0]).includes('CHANNEL_BRIDGE'))!;
    expect(bridged.slice(1, 3)).toEqual(['20.00 / 20.00', '22.00 / 30.00']);
    expect(rows.slice(at + 1, at + 9).map((r) => r[1])).toEqual([
      '1.00 / 1.00',
      '1.00 / 1.00',
      '1.00 / 1.00',
      '1.00 / 1.00',
      '20.00 / 20.00',
      '1.00 / 1.00',
      '1.00 / 1.00',
      '1.00 / 1.00',
    ]);
    // Without stamps, no breakdown: its title and its eight rows go.
    const without = report(side(samples(25, 40)), side(samples(22, 30))).rows;
    expect(without).toHaveLength(rows.length - 9);
  });

  it('says how many bridges of the window waited for a pair, and the longest wait', () => {
    const { notes } = report(side(samples(22, 30), 0, [5, 30]), side(samples(22, 30)));
    expect(notes.join('\n')).toContain(
      'waited for a pair: 2 (at most 30.00 ms) gateway, 0 baseline',
    );
  });
});
