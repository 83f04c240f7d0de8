// Cross-node conferences: a session on one media node joins a room hosted by another through a
// bridge leg from its simulator to the host's (the simulators' SIP trunk). Two simulators, two
// media nodes, one api and Redis; events read from the stream.
import { beforeAll, describe, expect, it } from 'vitest';
import { killOutcome } from '../../src/conference/bridge-leg.js';
import type { SimControl, Stack, Tenant } from './harness.js';
import { answeredCall, fsEvent, request, type NodeOnSim } from './calls.js';
import { useAudio, useStack, useTenant } from './use-stack.js';

const did = '0733330000';
let rooms = 0;
/** Each node with the simulator it drives, by prefix. */
const nodes = new Map<string, NodeOnSim>();

// The api's cooldown groups (500 ms between playbacks, 2 s between conference commands...) have
// tests of their own (api/test/session-commands.test.ts): a conference or playback command here
// waits out the window that the session's previous one of its group left, with
// commandAfterCooldown.
const stack = useStack();
const tenant = useTenant(stack, { dids: [did] });
const audio = useAudio();

beforeAll(async () => {
  const other = await stack.startNode();
  for (const n of [{ node: stack.node, control: stack.control }, other])
    nodes.set(n.node.prefix, n);
});

interface Setup {
  readonly room: string;
  readonly host: NodeOnSim;
  readonly away: NodeOnSim;
}

/** A room, its host node and the other node (whichever the api placed the room on). */
async function newRoom(): Promise<Setup> {
  const res = await request(stack, tenant, 'POST', '/api/v1/conferences', {
    name: `bridge-${++rooms}`,
  });
  expect(res.status).toBe(201);
  const room = res.body.room_id as string;
  const host = nodes.get(room.slice(0, 5));
  const away = [...nodes.values()].find((n) => n !== host);
  if (!host || !away) throw new Error(`room ${room} on an unknown node`);
  return { room, host, away };
}

async function join(session: string, room: string) {
  const res = await stack.commandAfterCooldown(tenant, session, 'conference/join', {
    room_id: room,
  });
  expect(res).toEqual({ status: 202, body: { status: 'joining', room_id: room } });
  return stack.events.of(session, 'conference.member.joined');
}

/** An answered call on the node away from a new room, joined to the room through a bridge leg. */
async function awayMember() {
  const setup = await newRoom();
  const { session, uuid } = await answeredCall(stack, tenant, did, setup.away);
  const joined = await join(session, setup.room);
  return { setup, session, uuid, joined };
}

interface SimCall {
  readonly uuid: string;
  readonly to: string;
  readonly applications: string[];
}

/** The calls a simulator has, with the applications running on them. */
async function simCalls(control: SimControl): Promise<SimCall[]> {
  const res = await fetch(`${control.url}/sim/calls`);
  return ((await res.json()) as { calls: SimCall[] }).calls;
}

/** The host's bridge leg of a room (the inbound trunk call to voicegw-conf-<room>). */
async function hostLeg(setup: Setup): Promise<SimCall | undefined> {
  return (await simCalls(setup.host.control)).find((c) => c.to === `voicegw-conf-${setup.room}`);
}

const field = (session: string, name: string) =>
  stack.redis.hget(stack.keys.session(session), name);

const appsOf = async (on: { control: SimControl }, uuid: string) =>
  (await simCalls(on.control)).find((c) => c.uuid === uuid)?.applications;

describe.concurrent('a session joins a room hosted by another media node', () => {
  it('joins through a bridge leg: joined with a member id, listed in the room, no call.new for the leg', async () => {
    const { setup, session, joined } = await awayMember();
    expect(joined).toMatchObject({ room_id: setup.room, session_uuid: session, muted: true });
    expect(joined.member_id).toMatch(/^\d+$/);
    expect(await field(session, 'conf_state')).toBe('joined');
    expect(await field(session, 'conf_member_id')).toBe(joined.member_id);

    const members = await request(
      stack,
      tenant,
      'GET',
      `/api/v1/conferences/${setup.room}/members`,
    );
    expect(members.status).toBe(200);
    expect(members.body.members).toEqual([
      expect.objectContaining({ uuid: session, did, muted: true }),
    ]);

    // The host's FreeSWITCH has the leg in the room, muted, under that member id.
    const leg = await hostLeg(setup);
    expect(leg?.applications).toEqual(['conference']);
    const list = await setup.host.node.esl.api(`conference ${setup.room} list`);
    expect(list).toMatch(
      new RegExp(`^${String(joined.member_id)};[^;]*;${leg?.uuid ?? '-'};`, 'm'),
    );
    expect(list).not.toMatch(/speak/);
    expect(
      stack.events.all.some(
        (e) => e.event === 'call.new' && e.did === `voicegw-conf-${setup.room}`,
      ),
    ).toBe(false);

    // A member on the host itself joins the same conference, beside the bridged one.
    const local = await answeredCall(stack, tenant, did, setup.host);
    const joinedLocal = await join(local.session, setup.room);
    expect(joinedLocal.member_id).not.toBe(joined.member_id);
    const both = await request(stack, tenant, 'GET', `/api/v1/conferences/${setup.room}/members`);
    expect((both.body.members as Array<{ uuid: string }>).map((m) => m.uuid)).toEqual([
      session,
      local.session,
    ]);

    const again = await stack.command(tenant, session, 'conference/join', { room_id: setup.room });
    expect(again).toEqual({ status: 200, body: { status: 'already_joined', room_id: setup.room } });
  });

  it('unmute and mute of the bridged member are carried out by the host and confirmed', async () => {
    const { setup, session, joined } = await awayMember();
    const unmute = await stack.commandAfterCooldown(tenant, session, 'conference/unmute');
    expect(unmute).toEqual({ status: 202, body: { status: 'unmuted', room_id: setup.room } });
    expect(await stack.events.of(session, 'conference.member.unmuted')).toMatchObject({
      room_id: setup.room,
      member_id: joined.member_id,
      muted: false,
    });
    expect(await field(session, 'conf_muted')).toBe('0');
    expect(await setup.host.node.esl.api(`conference ${setup.room} list`)).toMatch(/hear\|speak/);

    const mute = await stack.commandAfterCooldown(tenant, session, 'conference/mute');
    expect(mute).toEqual({ status: 202, body: { status: 'muted', room_id: setup.room } });
    expect(await stack.events.of(session, 'conference.member.muted')).toMatchObject({
      member_id: joined.member_id,
      muted: true,
    });
    expect(await field(session, 'conf_muted')).toBe('1');
    expect(await setup.host.node.esl.api(`conference ${setup.room} list`)).not.toMatch(/speak/);
    expect(
      stack.events
        .session(session)
        .some((e) => e.event === 'command.result' && e.success === false),
    ).toBe(false);
  });

  it('leave hangs up the bridge leg: left, and the call goes back to park on its node', async () => {
    const { setup, session, uuid } = await awayMember();
    const leg = await hostLeg(setup);
    const legGone = fsEvent(
      setup.host.node,
      (e) => e.name === 'CHANNEL_HANGUP_COMPLETE' && e.uuid === leg?.uuid,
    );
    const parked = fsEvent(setup.away.node, (e) => e.name === 'CHANNEL_PARK' && e.uuid === uuid);
    const leave = await stack.commandAfterCooldown(tenant, session, 'conference/leave');
    expect(leave).toEqual({ status: 202, body: { status: 'leaving', room_id: setup.room } });
    expect(await stack.events.of(session, 'conference.member.left')).toMatchObject({
      room_id: setup.room,
      session_uuid: session,
    });
    await Promise.all([legGone, parked]);
    expect(await field(session, 'conf_state')).toBe('none');
    const members = await request(
      stack,
      tenant,
      'GET',
      `/api/v1/conferences/${setup.room}/members`,
    );
    expect(members.body.members).toEqual([]);
    expect(await appsOf(setup.away, uuid)).toEqual(['park']);
    expect(stack.events.has(session, 'call.hangup')).toBe(false);

    // Back in park, the call can join again.
    await join(session, setup.room);
  });

  it('deleting the room on its host tears the bridge down; the session stays up on its node', async () => {
    const { setup, session, uuid } = await awayMember();
    const parked = fsEvent(setup.away.node, (e) => e.name === 'CHANNEL_PARK' && e.uuid === uuid);
    const res = await request(stack, tenant, 'DELETE', `/api/v1/conferences/${setup.room}`);
    expect(res).toEqual({ status: 200, body: { room_id: setup.room } });
    expect(await stack.events.of(session, 'conference.member.left')).toMatchObject({
      room_id: setup.room,
    });
    await parked;
    expect(await appsOf(setup.away, uuid)).toEqual(['park']);
    expect(await hostLeg(setup)).toBeUndefined();
    expect(await field(session, 'conf_state')).toBe('none');
    expect(stack.events.has(session, 'call.hangup')).toBe(false);
    const hangup = await stack.command(tenant, session, 'hangup');
    expect(hangup.status).toBe(202);
    expect(await stack.events.of(session, 'call.hangup')).toMatchObject({
      hangup_cause: 'completed',
    });
  });

  it('the session hanging up on its node removes the member on the host: left, then call.hangup', async () => {
    const { setup, session, uuid } = await awayMember();
    const leg = await hostLeg(setup);
    const memberGone = fsEvent(
      setup.host.node,
      (e) => e.header('Action') === 'del-member' && e.uuid === leg?.uuid,
    );
    await setup.away.control.hangup(uuid);
    const left = await stack.events.of(session, 'conference.member.left');
    const hangup = await stack.events.of(session, 'call.hangup');
    const events = stack.events.session(session);
    expect(events.indexOf(left)).toBeLessThan(events.indexOf(hangup));
    expect(hangup).toMatchObject({ hangup_cause: 'completed' });
    expect((await memberGone).header('Conference-Name')).toBe(setup.room);
    expect(await stack.redis.zcard(stack.keys.roomMembers(setup.room))).toBe(0);
  });

  it('keys pressed by the bridged caller still reach the app as dtmf', async () => {
    const { setup, session, uuid } = await awayMember();
    await setup.away.control.dtmf(uuid, '4');
    expect(await stack.events.of(session, 'dtmf')).toMatchObject({ digit: '4' });
  });
});

describe.concurrent('playback while in a conference plays to the member', () => {
  async function playsToTheMember(setup: Setup, where: 'host' | 'away') {
    const { session } = await answeredCall(stack, tenant, did, setup[where]);
    await join(session, setup.room);
    const uid = `in-room-${where}`;
    const res = await stack.commandAfterCooldown(tenant, session, 'playback/start', {
      urls: [`${audio.base}/tone300ms.wav`],
      command_uid: uid,
    });
    expect(res.status).toBe(202);
    const match = (name: string) => (e: Record<string, unknown>) =>
      e.session_uuid === session && e.event === name && e.command_uid === uid;
    expect(await stack.events.waitFor(match('command.result'))).toMatchObject({ success: true });
    expect(await stack.events.waitFor(match('playback.started'))).toBeDefined();
    // It played to its end: nothing cut it short.
    const stopped = await stack.events.waitFor(match('playback.stopped'));
    expect(stopped.offset_ms).toBeGreaterThanOrEqual(250);
    expect(stopped.offset_ms).toBeLessThanOrEqual(350);
    // Still a member: the playback ran on top of the conference, and unmute works at once.
    expect(await field(session, 'conf_state')).toBe('joined');
    await stack.commandAfterCooldown(tenant, session, 'conference/unmute');
    expect(await stack.events.of(session, 'conference.member.unmuted')).toMatchObject({
      muted: false,
    });
    expect(stack.events.has(session, 'conference.member.left')).toBe(false);
  }

  it('a member of a room on its own node hears its playback and stays in the room', async () => {
    await playsToTheMember(await newRoom(), 'host');
  });

  it('a bridged member hears its playback and stays in the room', async () => {
    await playsToTheMember(await newRoom(), 'away');
  });

  it('leaving stops a playback playing to the member (playback.stopped, then left)', async () => {
    const setup = await newRoom();
    const { session } = await answeredCall(stack, tenant, did, setup.host);
    await join(session, setup.room);
    await stack.commandAfterCooldown(tenant, session, 'playback/start', {
      urls: [`${audio.base}/tone3000ms.wav`],
      command_uid: 'long-in-room',
    });
    await stack.events.waitFor((e) => e.session_uuid === session && e.event === 'playback.started');
    await stack.commandAfterCooldown(tenant, session, 'conference/leave');
    const left = await stack.events.of(session, 'conference.member.left');
    const stopped = await stack.events.of(session, 'playback.stopped');
    const events = stack.events.session(session);
    expect(stopped).toMatchObject({ command_uid: 'long-in-room' });
    expect(events.indexOf(stopped)).toBeLessThan(events.indexOf(left));
  });
});

/**
 * An answered call on `on`, once its node's heartbeat counts it (so that the node is full when
 * it has a capacity of 1), and a room named `name` wherever the api then places it.
 */
async function countedCallAndRoom(own: Stack, ownTenant: Tenant, on: NodeOnSim, name: string) {
  const { uuid, session } = await answeredCall(own, ownTenant, did, on);
  const beat = own.keys.nodeHeartbeat(on.node.prefix);
  await expect.poll(() => own.redis.hget(beat, 'active_sessions')).toBe('1');
  const created = await request(own, ownTenant, 'POST', '/api/v1/conferences', { name });
  return { uuid, session, room: created.body.room_id as string };
}

describe('a join the room host cannot take', () => {
  // The first node takes one call and is then full, so new rooms go to the second node,
  // which announces no SIP address.
  const own = useStack({ nodeEnv: { CAPACITY: '1' } });
  const ownTenant = useTenant(own, { dids: [did] });
  beforeAll(() => own.startNode({ FS_SIP_ADDRESS: '', CAPACITY: '500' }));

  it('is undone: command.result false naming the missing address, and not in a conference', async () => {
    const { session, room } = await countedCallAndRoom(own, ownTenant, own, 'no-sip');
    expect(room.slice(0, 5)).not.toBe(own.node.prefix);

    const res = await own.commandAfterCooldown(ownTenant, session, 'conference/join', {
      room_id: room,
      command_uid: 'join-no-sip',
    });
    expect(res).toEqual({ status: 202, body: { status: 'joining', room_id: room } });
    const result = await own.events.waitFor(
      (e) => e.event === 'command.result' && e.command_uid === 'join-no-sip',
    );
    expect(result).toMatchObject({
      session_uuid: session,
      success: false,
      error: 'the room host node announces no SIP address (FS_SIP_ADDRESS)',
    });
    expect(await own.redis.hget(own.keys.session(session), 'conf_state')).toBe('none');
    expect(await own.redis.zcard(own.keys.roomMembers(room))).toBe(0);
    expect(own.events.has(session, 'conference.member.joined')).toBe(false);
  });
});

describe('a room host that restarts', () => {
  const own = useStack();
  const ownTenant = useTenant(own, { dids: [did] });

  it('still carries out unmute for its bridged members and tears them down on DELETE', async () => {
    // The second node is full after one call, so the room goes to the first one.
    const away = await own.startNode({ CAPACITY: '1' });
    const { uuid, session, room } = await countedCallAndRoom(
      own,
      ownTenant,
      away,
      'restarting-host',
    );
    expect(room.slice(0, 5)).toBe(own.node.prefix);
    await own.commandAfterCooldown(ownTenant, session, 'conference/join', { room_id: room });
    const joined = await own.events.of(session, 'conference.member.joined');

    // The host's process restarts (same name, same FreeSWITCH): its legs are unknown to it.
    await own.node.close({ retire: false });
    const { node: host } = await own.startNode({ NODE_NAME: own.node.name }, true);
    expect(host.prefix).toBe(own.node.prefix);

    await own.commandAfterCooldown(ownTenant, session, 'conference/unmute');
    expect(await own.events.of(session, 'conference.member.unmuted')).toMatchObject({
      member_id: joined.member_id,
      muted: false,
    });
    const parked = fsEvent(away.node, (e) => e.name === 'CHANNEL_PARK' && e.uuid === uuid);
    const res = await own.api.inject({
      method: 'DELETE',
      url: `/api/v1/conferences/${room}`,
      headers: ownTenant.headers,
    });
    expect(res.statusCode).toBe(200);
    expect(await own.events.of(session, 'conference.member.left')).toMatchObject({ room_id: room });
    await parked;
  });
});

describe('uuid_kill of a bridge leg the far side already ended', () => {
  it('is gone (logged at debug), not failed (a warning); other refusals are failures', async () => {
    const [on] = nodes.values();
    if (!on) throw new Error('no node');
    const { uuid } = await answeredCall(stack, tenant, did, on);
    expect(killOutcome(await on.node.esl.api(`uuid_kill ${uuid} NORMAL_CLEARING`))).toBe('killed');
    // FreeSWITCH's answer once the channel is gone (trace h_uuid_kill), as the leg's would be.
    await expect
      .poll(() => on.node.esl.api(`uuid_kill ${uuid} NORMAL_CLEARING`))
      .toBe('-ERR No such channel!\n');
    expect(killOutcome('-ERR No such channel!\n')).toBe('gone');
    expect(killOutcome('-ERR not connected to FreeSWITCH\n')).toBe('failed');
    expect(killOutcome('-USAGE: <uuid> [cause]\n')).toBe('failed');
  });
});
