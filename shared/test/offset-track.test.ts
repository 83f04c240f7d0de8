import { describe, expect, it } from 'vitest';
import { OffsetTrack } from '../src/bus/offset-track.js';

/** A track holding the given fetched offsets. */
function holding(...offsets: number[]): OffsetTrack {
  const track = new OffsetTrack();
  for (const offset of offsets) expect(track.add(String(offset))).toBe(true);
  return track;
}

describe('OffsetTrack (the Kafka partition commit floor)', () => {
  it('commits nothing before anything is acknowledged', () => {
    const track = holding(10, 11, 12);
    expect(track.outstanding).toBe(3);
    expect(track.takeCommit()).toBeUndefined();
  });

  it('commits one past the highest offset below which everything is acknowledged', () => {
    const track = holding(10, 11, 12);
    expect(track.done('10')).toBe(true);
    expect(track.takeCommit()).toBe('11');
    expect(track.outstanding).toBe(2);
  });

  it('holds the floor at the oldest unacknowledged offset when later ones finish first', () => {
    const track = holding(10, 11, 12);
    expect(track.done('12')).toBe(false);
    expect(track.done('11')).toBe(false);
    expect(track.takeCommit()).toBeUndefined();
    expect(track.outstanding).toBe(1);

    expect(track.done('10')).toBe(true);
    expect(track.takeCommit()).toBe('13');
    expect(track.outstanding).toBe(0);
  });

  it('offers each commit once', () => {
    const track = holding(5, 6);
    track.done('5');
    expect(track.takeCommit()).toBe('6');
    expect(track.takeCommit()).toBeUndefined();
    track.done('6');
    expect(track.takeCommit()).toBe('7');
  });

  it('steps over gaps in the offsets (compacted or transactional partitions)', () => {
    const track = holding(100, 104, 109);
    track.done('104');
    track.done('100');
    expect(track.takeCommit()).toBe('105');
    track.done('109');
    expect(track.takeCommit()).toBe('110');
  });

  it('refuses a re-fetch of an offset still held or already below the floor', () => {
    const track = holding(1, 2);
    expect(track.add('2')).toBe(false);
    track.done('1');
    expect(track.add('1')).toBe(false);
    expect(track.add('0')).toBe(false);
    expect(track.outstanding).toBe(1);
  });

  it('ignores an acknowledgement of an offset it never held, or acknowledged twice', () => {
    const track = holding(7, 8);
    expect(track.done('42')).toBe(false);
    expect(track.done('8')).toBe(false);
    expect(track.done('8')).toBe(false);
    expect(track.outstanding).toBe(1);
    expect(track.done('7')).toBe(true);
    expect(track.takeCommit()).toBe('9');
  });

  it('keeps exact values past 2^53 (offsets are int64 strings)', () => {
    const big = 2n ** 60n;
    const track = new OffsetTrack();
    track.add(big.toString());
    track.add((big + 1n).toString());
    track.done(big.toString());
    expect(track.takeCommit()).toBe((big + 1n).toString());
  });
});
