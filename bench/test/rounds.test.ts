import { describe, expect, it } from 'vitest';
import { alternate, calmly, stealNote, type Host } from '../lib/rounds.js';

/** A host whose steal is what the measurement last said it was. */
class ScriptedHost implements Host {
  calms = 0;
  stealNow = 0;

  calm(): Promise<void> {
    this.calms++;
    return Promise.resolve();
  }

  meter(): { share(): number } {
    return { share: () => this.stealNow };
  }
}

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
      host,
    );
    expect(calls).toEqual(['api0', 'baseline0', 'baseline1', 'api1', 'api2', 'baseline2']);
    expect(result.runs).toEqual({
      api: ['api-0', 'api-1', 'api-2'],
      baseline: ['baseline-0', 'baseline-1', 'baseline-2'],
    });
    expect(result).toMatchObject({ steal: [0, 0, 0], repeated: 0, stolen: 0 });
    expect(host.calms).toBe(3);
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
        host.stealNow = steal[run] ?? 0;
        return Promise.resolve(`${target}#${run++}`);
      },
      host,
    );
    expect(result.runs).toEqual({ api: ['api#2'], baseline: ['baseline#3'] });
    expect(result).toMatchObject({ steal: [0.02], repeated: 1, stolen: 0 });
    expect(host.calms).toBe(2);
  });

  it('counts a round as it is after three repeats that were all stolen from, and says so', async () => {
    const host = new ScriptedHost();
    host.stealNow = 0.5;
    let run = 0;
    const result = await alternate(
      1,
      ['raw', 'dispatcher'],
      (target) => Promise.resolve(`${target}#${run++}`),
      host,
    );
    expect(result.runs).toEqual({ raw: ['raw#6'], dispatcher: ['dispatcher#7'] });
    expect(result).toMatchObject({ steal: [0.5], repeated: 3, stolen: 1 });
    expect(stealNote([result])).toContain('3 repeated, 1 counted after 3 repeats still above it');
  });
});

describe('calmly', () => {
  it('judges by the steal over the whole measurement unless told otherwise', async () => {
    const host = new ScriptedHost();
    let attempts = 0;
    const measured = await calmly(
      () => {
        attempts++;
        host.stealNow = attempts === 1 ? 0.11 : 0.1;
        return Promise.resolve(attempts);
      },
      { host },
    );
    // 11 % is over the 10 % limit; exactly 10 % is not.
    expect(measured).toMatchObject({ result: 2, steal: [0.1], repeated: 1, stolen: 0 });
  });
});

describe('stealNote', () => {
  it('gives the median and the worst steal of the counted measurements', () => {
    const note = stealNote([
      { steal: [0.01, 0.03], repeated: 1, stolen: 0 },
      { steal: [0.02], repeated: 0, stolen: 0 },
    ]);
    expect(note).toMatch(
      /^host CPU steal during the counted measurements: median 2\.0 %, at most 3\.0 %/,
    );
    expect(note).toContain('exceeded 10.0 %: 1 repeated');
    expect(note).not.toContain('counted after');
  });

  it('says when steal is unknown', () => {
    expect(stealNote([{ steal: [Number.NaN], repeated: 0, stolen: 0 }])).toBe(
      'host CPU steal: unknown on this system (no /proc/stat)',
    );
  });
});
