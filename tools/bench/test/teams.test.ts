import { describe, expect, it } from 'vitest';
import type { LiveCall } from '../media-node/flows.js';
import type { BenchApp } from '../media-node/stack.js';
import { Teams, teamsByApp } from '../media-node/teams.js';

const app = (appId: string): BenchApp => ({ appId, did: '0730000000', headers: {} });
const call = (id: string, appId?: string): LiveCall =>
  appId === undefined ? { id } : { id, app: app(appId) };
const ids = (teams: readonly (readonly LiveCall[])[]): string[][] =>
  teams.map((team) => team.map((c) => c.id));

describe('teamsByApp', () => {
  it("makes teams of one app's calls only, leaving an app's odd calls out", () => {
    const calls = [
      call('a1', 'a'),
      call('b1', 'b'),
      call('a2', 'a'),
      call('b2', 'b'),
      call('a3', 'a'),
    ];
    expect(ids(teamsByApp(calls, 2))).toEqual([
      ['a1', 'a2'],
      ['b1', 'b2'],
    ]);
  });

  it('puts calls of no app (the bare socket’s) in teams together', () => {
    expect(ids(teamsByApp([call('x'), call('y'), call('z')], 2))).toEqual([['x', 'y']]);
  });
});

describe('Teams', () => {
  it('hands teams out in turn', async () => {
    const teams = new Teams([[call('a')], [call('b')]], 1000);
    expect(ids([await teams.take(), await teams.take()])).toEqual([['a'], ['b']]);
  });

  it('gives a team back only after its rest', async () => {
    const teams = new Teams([[call('a')]], 40);
    expect(teams.ready).toBe(true);
    teams.give(await teams.take());
    expect(teams.ready).toBe(false);
    const started = performance.now();
    expect(ids([await teams.take()])).toEqual([['a']]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(35);
  });

  it('waits for a team when every one is out', async () => {
    const teams = new Teams([[call('a')]], 0);
    const first = await teams.take();
    expect(teams.ready).toBe(false);
    const second = teams.take();
    setTimeout(() => teams.give(first), 20);
    expect(ids([await second])).toEqual([['a']]);
  });
});
