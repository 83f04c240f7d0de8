import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeToneWav } from '@voicegw/simulator';
import type { EslClient } from '@voicegw/simulator/client';
import type { Recorder } from '../lib/task-load.js';
import { later } from './flows.js';
import type { Gateway } from './stack.js';
import type { Teams } from './teams.js';

/**
 * Conference churn, both sides: a room is created, a team of live calls joins it (muted), a
 * prompt plays to it, and it is deleted (members kicked back to park). Through the gateway:
 * the api's room routes and session commands, confirmed by the `conference.member.*` events the
 * media node publishes; baseline: `conference` application, `conference play` and `kick all`
 * over a bare event socket.
 */

/** A call may join again only this long after its last join (the `conference` cooldown). */
export const JOIN_COOLDOWN_MS = 2100;

export async function gatewayRoom(gw: Gateway, teams: Teams, audioUrl: string, record: Recorder) {
  const team = await teams.take();
  try {
    const headers = { ...team[0]?.app?.headers };
    const t0 = performance.now();
    const created = await gw.http.expect(201, 'POST', '/api/v1/conferences', headers, {
      name: `bench-${randomUUID().slice(0, 13)}`,
    });
    const room = String(created.room_id);
    const t1 = performance.now();
    record('create', t1 - t0);
    const joined = team.map((c) => later(gw.events.once(`conference.member.joined:${c.id}`)));
    await Promise.all(
      team.map((c) =>
        gw.http.expect(202, 'POST', `/api/v1/sessions/${c.id}/commands/conference/join`, headers, {
          room_id: room,
        }),
      ),
    );
    await Promise.all(joined);
    const t2 = performance.now();
    record('join', t2 - t1);
    await gw.http.expect(202, 'POST', `/api/v1/conferences/${room}/play`, headers, {
      urls: [audioUrl],
    });
    const t3 = performance.now();
    record('play', t3 - t2);
    const left = team.map((c) => later(gw.events.once(`conference.member.left:${c.id}`)));
    const destroyed = later(gw.events.once(`conference.destroyed:room:${room}`));
    await gw.http.expect(200, 'DELETE', `/api/v1/conferences/${room}`, headers);
    await Promise.all([...left, destroyed]);
    const t4 = performance.now();
    record('delete', t4 - t3);
    record('cycle', t4 - t0);
  } finally {
    teams.give(team);
  }
}

export async function rawRoom(esl: EslClient, teams: Teams, file: string, record: Recorder) {
  const team = await teams.take();
  try {
    const room = `bench-${randomUUID()}`;
    const event = (action: string, id: string): string => `conference::maintenance:${action}:${id}`;
    const t1 = performance.now();
    const added = team.map((c) => later(esl.once(event('add-member', c.id))));
    await Promise.all(
      team.map((c) =>
        esl.execute(c.id, 'conference', `${room}@default+flags{mute}`, randomUUID(), true),
      ),
    );
    await Promise.all(added);
    const t2 = performance.now();
    record('join', t2 - t1);
    const played = await esl.api(`conference ${room} play ${file}`);
    if (played.startsWith('-ERR')) throw new Error(`conference play: ${played}`);
    const t3 = performance.now();
    record('play', t3 - t2);
    const removed = team.map((c) => later(esl.once(event('del-member', c.id))));
    const destroyed = later(esl.once(event('conference-destroy', `room:${room}`)));
    await esl.api(`conference ${room} kick all`);
    await Promise.all([...removed, destroyed]);
    const t4 = performance.now();
    record('delete', t4 - t3);
    record('cycle', t4 - t1);
  } finally {
    teams.give(team);
  }
}

/** The prompt both sides play: over HTTP for the media node, as a local file for the baseline. */
export interface Prompt {
  readonly url: string;
  readonly file: string;
  close(): Promise<void>;
}

export async function servePrompt(): Promise<Prompt> {
  const wav = makeToneWav(1000);
  const file = join(tmpdir(), `voicegw-bench-prompt-${process.pid}.wav`);
  await writeFile(file, wav);
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length }).end(wav);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/prompt.wav`,
    file,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(file, { force: true });
    },
  };
}
