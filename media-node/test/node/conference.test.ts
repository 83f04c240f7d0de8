import { describe, expect, it } from 'vitest';
import type { FsEvent } from '../../src/esl/event.js';
import { answeredCall, fsEvent, request } from './calls.js';
import { useAudio, useStack, useTenant } from './use-stack.js';

const did = '0732220000';
let rooms = 0;

async function newRoom(): Promise<string> {
  const res = await request(stack, tenant, 'POST', '/api/v1/conferences', {
    name: `room-${++rooms}`,
  });
  expect(res.status).toBe(201);
  return res.body.room_id as string;
}

async function join(session: string, room: string): Promise<Record<string, unknown>> {
  const res = await stack.commandAfterCooldown(tenant, session, 'conference/join', {
    room_id: room,
  });
  expect(res.body).toEqual({ status: 'joining', room_id: room });
  return stack.events.of(session, 'conference.member.joined');
}

/** A conference command for `session`, sent once its cooldown allows: the answer's body. */
const conferenceCommand = async (session: string, command: 'mute' | 'unmute' | 'leave') =>
  (await stack.commandAfterCooldown(tenant, session, `conference/${command}`)).body;

/** An answered call that joined a new room: its session and the room. */
async function memberOfNewRoom(): Promise<{ session: string; room: string }> {
  const room = await newRoom();
  const { session } = await answeredCall(stack, tenant, did);
  await join(session, room);
  return { session, room };
}

const field = (session: string, name: string) =>
  stack.redis.hget(stack.keys.session(session), name);

// The api's cooldown groups (500 ms between playbacks, 2 s between conference commands...) have
// tests of their own (api/test/session-commands.test.ts): a conference or playback command here
// waits out the window that the session's previous one of its group left, with
// commandAfterCooldown.
const stack = useStack();
const tenant = useTenant(stack, { dids: [did] });
const audio = useAudio();

describe.concurrent('conference members', () => {
  it('members join muted; joined is reported with the member id once FreeSWITCH confirms', async () => {
    const room = await newRoom();
    const [{ session: a }, { session: b }] = await Promise.all([
      answeredCall(stack, tenant, did),
      answeredCall(stack, tenant, did),
    ]);
    const joinedA = await join(a, room);
    const joinedB = await join(b, room);
    expect(joinedA).toMatchObject({ room_id: room, session_uuid: a, muted: true });
    expect(joinedA.member_id).toMatch(/^\d+$/);
    expect(joinedB.member_id).not.toBe(joinedA.member_id);
    expect(await field(a, 'conf_state')).toBe('joined');
    expect(await field(a, 'conf_member_id')).toBe(joinedA.member_id);

    const again = await stack.command(tenant, a, 'conference/join', { room_id: room });
    expect(again).toMatchObject({ status: 200, body: { status: 'already_joined', room_id: room } });

    const members = await request(stack, tenant, 'GET', `/api/v1/conferences/${room}/members`);
    expect((members.body.members as unknown[]).length).toBe(2);
  });

  it('joining stops a silence stream first (it would hold the channel)', async () => {
    const room = await newRoom();
    const { session } = await answeredCall(stack, tenant, did);
    await stack.commandAfterCooldown(tenant, session, 'playback/silence', { command_uid: 'hush' });
    await stack.events.ofCommand(session, 'command.result', 'hush');
    await join(session, room);
    expect(stack.events.has(session, 'playback.stopped', 'hush')).toBe(true);
  });

  it('unmute and mute are confirmed by FreeSWITCH', async () => {
    const { session, room } = await memberOfNewRoom();
    expect(await conferenceCommand(session, 'unmute')).toEqual({
      status: 'unmuted',
      room_id: room,
    });
    expect(await stack.events.of(session, 'conference.member.unmuted')).toMatchObject({
      room_id: room,
      muted: false,
    });
    await conferenceCommand(session, 'mute');
    expect(await stack.events.of(session, 'conference.member.muted')).toMatchObject({
      muted: true,
    });
    expect(await field(session, 'conf_muted')).toBe('1');
  });

  it('leave kicks the member, whose call stays up', async () => {
    const { session, room } = await memberOfNewRoom();
    expect(await conferenceCommand(session, 'leave')).toEqual({ status: 'leaving', room_id: room });
    expect(await stack.events.of(session, 'conference.member.left')).toMatchObject({
      room_id: room,
    });
    expect(await field(session, 'conf_state')).toBe('none');
    const members = await request(stack, tenant, 'GET', `/api/v1/conferences/${room}/members`);
    expect(members.body.members).toEqual([]);
    expect(stack.events.has(session, 'call.hangup')).toBe(false);
  });

  it('hanging up in a room reports left, then call.hangup, and the room forgets the member', async () => {
    const { session, room } = await memberOfNewRoom();
    await stack.command(tenant, session, 'hangup');
    const left = await stack.events.of(session, 'conference.member.left');
    const hangup = await stack.events.of(session, 'call.hangup');
    const events = stack.events.session(session);
    expect(events.indexOf(left)).toBeLessThan(events.indexOf(hangup));
    expect(await stack.redis.zcard(stack.keys.roomMembers(room))).toBe(0);
  });

  it('deleting the room kicks its members, who stay on the call', async () => {
    const { session, room } = await memberOfNewRoom();
    const res = await request(stack, tenant, 'DELETE', `/api/v1/conferences/${room}`);
    expect(res.status).toBe(200);
    expect(await stack.events.of(session, 'conference.member.left')).toMatchObject({
      room_id: room,
    });
    await stack.command(tenant, session, 'hangup');
    await stack.events.of(session, 'call.hangup');
  });
});

describe.concurrent('room playback', () => {
  it('play ends naturally with conference.play.finished and the room back to stopped', async () => {
    const { room } = await memberOfNewRoom();
    const urls = [`${audio.base}/tone200ms.wav`, `${audio.base}/tone300ms.wav`];
    const res = await request(stack, tenant, 'POST', `/api/v1/conferences/${room}/play`, { urls });
    expect(res.status).toBe(202);
    const finished = await stack.events.waitFor(
      (e) => e.event === 'conference.play.finished' && e.room_id === room,
    );
    expect(finished).toMatchObject({ operation_id: res.body.operation_id, urls });
    const status = await request(stack, tenant, 'GET', `/api/v1/conferences/${room}`);
    expect(status.body).toMatchObject({ playback_status: 'stopped', playback_urls: [] });
  });

  it('a stopped play does not report finished', async () => {
    const { session, room } = await memberOfNewRoom();
    // The room's own play-file events (the "alone" prompt at the join carries an Error).
    const roomFile = (action: string, file?: string) => (e: FsEvent) =>
      e.header('Conference-Name') === room &&
      e.header('Action') === action &&
      e.header('Error') === undefined &&
      (file === undefined || e.header('File') === file);
    const playing = fsEvent(stack.node, roomFile('play-file'));
    const res = await request(stack, tenant, 'POST', `/api/v1/conferences/${room}/play`, {
      urls: [`${audio.base}/tone3000ms.wav`],
    });
    const file = (await playing).header('File');
    const stopped = fsEvent(stack.node, roomFile('play-file-done', file));
    expect((await request(stack, tenant, 'POST', `/api/v1/conferences/${room}/stop`)).status).toBe(
      202,
    );
    await stopped;
    // A finished published for that play-file-done would be out before the node has carried
    // out a later command of the session: hang up and wait for it.
    await stack.command(tenant, session, 'hangup');
    await stack.events.of(session, 'call.hangup');
    expect(
      stack.events.all.some(
        (e) => e.event === 'conference.play.finished' && e.operation_id === res.body.operation_id,
      ),
    ).toBe(false);
    const status = await request(stack, tenant, 'GET', `/api/v1/conferences/${room}`);
    expect(status.body).toMatchObject({ playback_status: 'stopped' });
  });
});
