// The media node's event subscription, applied by the simulator as FreeSWITCH applies it: what
// one call brings to the node's socket, and what stays at FreeSWITCH.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '@voicegw/simulator';
import type { EslClient } from '../../src/esl/client.js';
import { NODE_SUBSCRIPTION, type FsEvent } from '../../src/esl/event.js';
import { control } from '@voicegw/simulator/client';
import { connectEslClient } from './esl-client.js';

let sim: Simulator;
let client: EslClient;
const events: FsEvent[] = [];

beforeAll(async () => {
  sim = await startSimulator({ eslPort: 0, httpPort: 0 });
  client = await connectEslClient(sim, NODE_SUBSCRIPTION);
  client.on('event', (event) => events.push(event));
});

afterAll(async () => {
  await client.stop();
  await sim.close();
});

function next(name: string, uuid: string): Promise<FsEvent> {
  return new Promise((resolve) => {
    const seen = events.find((e) => e.name === name && e.uuid === uuid);
    if (seen) return resolve(seen);
    const listener = (e: FsEvent): void => {
      if (e.name !== name || e.uuid !== uuid) return;
      client.off('event', listener);
      resolve(e);
    };
    client.on('event', listener);
  });
}

describe("the media node's subscription", () => {
  it('brings a call’s life and the applications the node watches, not park’s nor answer’s start', async () => {
    const { json } = await control(sim, 'POST', '/sim/calls', { to: '100', from: '200' });
    const uuid = json.uuid as string;
    await next('CHANNEL_PARK', uuid);
    expect(await client.execute(uuid, 'answer', '', 'app-answer')).toBe('+OK');
    await next('CHANNEL_EXECUTE_COMPLETE', uuid);
    expect(await client.execute(uuid, 'playback', 'silence_stream://100', 'app-play')).toBe('+OK');
    await next('PLAYBACK_STOP', uuid);
    expect(await client.api(`uuid_kill ${uuid}`)).toBe('+OK\n');
    await next('CHANNEL_HANGUP_COMPLETE', uuid);

    const seen = events
      .filter((e) => e.uuid === uuid)
      .map((e) => {
        const app = e.header('Application');
        return app ? `${e.name}(${app})` : e.name;
      });
    expect(seen).toEqual([
      'CHANNEL_PARK',
      'CHANNEL_ANSWER',
      'CHANNEL_EXECUTE_COMPLETE(answer)',
      'CHANNEL_EXECUTE(playback)',
      'PLAYBACK_START',
      'PLAYBACK_STOP',
      'CHANNEL_EXECUTE_COMPLETE(playback)',
      'CHANNEL_HANGUP',
      'CHANNEL_HANGUP_COMPLETE',
    ]);
  });
});
