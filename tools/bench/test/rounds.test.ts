import { describe, expect, it } from 'vitest';
import {
  alternate,
  calmly,
  hostNote,
  rotate,
  rotatedOrder,
  type Host,
  type HostRecord,
  type Interference,
  type Sensitivity,
} from '../lib/rounds.js';

/** A host that took what the measurement last said it took. */
class ScriptedHost implements Host {
  readonly calms: Sensitivity[] = [];
  takenNow: Interference = { steal: 0, paused: 0 };

  calm(sensitivity: Sensitivity): Promise<void> {
    this.calms.push(sensitivity);
    return Promise.resolve();
  }

  meter(): { read(): Interference } {
    return { read: () => this.takenNow };
  }
}

const record = (over: Partial<HostRecord>): HostRecord => ({
  sensitivity: 'throughput',
  taken: [],
  repeated: 0,
  disturbed: 0,
  ...over,
});

describe('alternate', () => {
  it('measures the two targets in ABBA order, one round after the other, each on a calm host', async () => {
    const host = new ScriptedHost();
    const calls: string[] = [];
    const result = await alternate(
      3,
      ['api', 'baseline'],
      (target, round) => {
        calls.push(`${target}${round}`);
        return Promise.resolve(`${target}-${round}`);
      },
      { sensitivity: 'throughput', host },
    );
    expect(calls).toEqual(['api0', 'baseline0', 'baseline1', 'api1', 'api2', 'baseline2']);
    expect(result.runs).toEqual({
      api: ['api-0', 'api-1', 'api-2'],
      baseline: ['baseline-0', 'baseline-1', 'baseline-2'],
    });
    expect(result).toMatchObject({ repeated: 0, disturbed: 0, sensitivity: 'throughput' });
    expect(result.taken).toHaveLength(3);
    expect(host.calms).toEqual(['throughput', 'throughput', 'throughput']);
  });

  it('measures a round again when either of its runs was stolen from, and keeps only the calm one', async () => {
    const host = new ScriptedHost();
    // Round 0: the baseline's first run is stolen from (30 %); the repeat is calm (2 %).
    const steal = [0, 0.3, 0, 0.02];
    let run = 0;
    const result = await alternate(
      1,
      ['api', 'baseline'],
      (target) => {
        host.takenNow = { steal: steal[run] ?? 0, paused: 0 };
        return Promise.resolve(`${target}#${run++}`);
      },
      { sensitivity: 'throughput', host },
    );
    expect(result.runs).toEqual({ api: ['api#2'], baseline: ['baseline#3'] });
    expect(result).toMatchObject({ taken: [{ steal: 0.02, paused: 0 }], repeated: 1 });
    expect(host.calms).toHaveLength(2);
  });

  it('repeats a latency round for host pauses that a throughput round tolerates', async () => {
    // 3 ms a second of pauses: over the latency limit (1 ms/s), harmless to throughput.
    const paused = [0.003, 0, 0, 0];
    for (const [sensitivity, repeated] of [
      ['latency', 1],
      ['throughput', 0],
    ] as const) {
      const host = new ScriptedHost();
      let run = 0;
      const result = await alternate(
        1,
        ['api', 'baseline'],
        (target) => {
          host.takenNow = { steal: 0, paused: paused[run] ?? 0 };
          return Promise.resolve(`${target}#${run++}`);
        },
        { sensitivity, host },
      );
      expect(result.repeated, sensitivity).toBe(repeated);
      expect(host.calms[0]).toBe(sensitivity);
    }
  });

  it('counts a round as it is after three repeats that were all disturbed, and says so', async () => {
    const host = new ScriptedHost();
    host.takenNow = { steal: 0.5, paused: 0 };
    let run = 0;
    const result = await alternate(
      1,
      ['raw', 'dispatcher'],
      (target) => Promise.resolve(`${target}#${run++}`),
      { sensitivity: 'throughput', host },
    );
    expect(result.runs).toEqual({ raw: ['raw#6'], dispatcher: ['dispatcher#7'] });
    expect(result).toMatchObject({ repeated: 3, disturbed: 1 });
    expect(hostNote([result])).toContain('3 repeated, 1 counted after 3 repeats still above it');
  });
});

describe('rotate', () => {
  it('starts each round one target later, and files every run under its target', async () => {
    const host = new ScriptedHost();
    const calls: string[] = [];
    const result = await rotate(
      4,
      ['redis', 'kafka-100', 'kafka-10'],
      (target, round) => {
        calls.push(`${target}${round}`);
        return Promise.resolve(`${target}-${round}`);
      },
      { sensitivity: 'latency', host },
    );
    expect(calls).toEqual([
      ...['redis0', 'kafka-1000', 'kafka-100'],
      ...['kafka-1001', 'kafka-101', 'redis1'],
      ...['kafka-102', 'redis2', 'kafka-1002'],
      ...['redis3', 'kafka-1003', 'kafka-103'],
    ]);
    expect(result.runs).toEqual([
      ['redis-0', 'redis-1', 'redis-2', 'redis-3'],
      ['kafka-100-0', 'kafka-100-1', 'kafka-100-2', 'kafka-100-3'],
      ['kafka-10-0', 'kafka-10-1', 'kafka-10-2', 'kafka-10-3'],
    ]);
    expect(host.calms).toEqual(['latency', 'latency', 'latency', 'latency']);
  });

  it('is ABBA with two targets, and measures a round again when any of its runs was disturbed', async () => {
    expect([0, 1, 2, 3].map((round) => rotatedOrder(round, ['a', 'b']).join(''))).toEqual([
      'ab',
      'ba',
      'ab',
      'ba',
    ]);
    const host = new ScriptedHost();
    const paused = [0, 0, 0.003, 0, 0, 0];
    let run = 0;
    const result = await rotate(
      1,
      ['a', 'b', 'c'],
      (target) => {
        host.takenNow = { steal: 0, paused: paused[run] ?? 0 };
        return Promise.resolve(`${target}#${run++}`);
      },
      { sensitivity: 'latency', host },
    );
    expect(result.runs).toEqual([['a#3'], ['b#4'], ['c#5']]);
    expect(result).toMatchObject({ repeated: 1, disturbed: 0 });
  });
});

describe('calmly', () => {
  it('judges by the whole measurement unless told otherwise, with the limit itself allowed', async () => {
    const host = new ScriptedHost();
    let attempts = 0;
    const measured = await calmly(
      () => {
        attempts++;
        host.takenNow = { steal: attempts === 1 ? 0.11 : 0.1, paused: 0.001 };
        return Promise.resolve(attempts);
      },
      { sensitivity: 'latency', host },
    );
    // 11 % steal is over the 10 % limit; exactly 10 % (and exactly 1 ms/s paused) is not.
    expect(measured).toMatchObject({ result: 2, repeated: 1, disturbed: 0 });
    expect(measured.taken).toEqual([{ steal: 0.1, paused: 0.001 }]);
  });
});

describe('hostNote', () => {
  it('gives the median and the worst steal of the counted measurements', () => {
    const note = hostNote([
      record({
        taken: [
          { steal: 0.01, paused: 0 },
          { steal: 0.03, paused: 0 },
        ],
        repeated: 1,
      }),
      record({ taken: [{ steal: 0.02, paused: 0 }] }),
    ]);
    expect(note).toMatch(
      /^host CPU steal during the counted measurements: median 2\.0 %, at most 3\.0 %/,
    );
    expect(note).toContain('exceeded 10.0 %: 1 repeated');
    expect(note).not.toContain('pauses');
    expect(note).not.toContain('counted after');
  });

  it('gives the host pauses of the latency measurements in ms per second', () => {
    const note = hostNote([
      record({ taken: [{ steal: 0, paused: 0.01 }] }),
      record({
        sensitivity: 'latency',
        taken: [
          { steal: 0, paused: 0.0002 },
          { steal: 0, paused: 0.0004 },
          { steal: 0, paused: 0.0009 },
        ],
        repeated: 2,
      }),
    ]);
    expect(note).toContain('during the counted latency measurements: median 0.4 ms/s, at most 0.9');
    expect(note).toContain('or pauses exceeded 1.0 ms/s): 2 repeated');
  });

  it('says when steal or pauses are unknown', () => {
    expect(hostNote([record({ taken: [{ steal: Number.NaN, paused: Number.NaN }] })])).toMatch(
      /^host CPU steal: unknown on this system \(no \/proc\/stat\); each waits/,
    );
    const latency = record({
      sensitivity: 'latency',
      taken: [{ steal: 0.01, paused: Number.NaN }],
    });
    expect(hostNote([latency])).toContain('host pauses: unknown (no probe at real-time priority');
  });
});
