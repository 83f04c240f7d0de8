import {
  eventArgs,
  encodeCommand,
  isRoomId,
  isSessionId,
  newOperationId,
  parseRoomId,
  roomId as newRoomId,
  lua,
  ScriptCode,
  type RoomCommandMessage,
  type RoomCommandName,
} from '@voicegw/shared';
import { GatewayError } from '../errors/catalogue.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type {
  ControlAccepted,
  MemberList,
  PlaybackStatus,
  RoomList,
  RoomStatus,
} from './room-schemas.js';
import { ROOM_COOLDOWNS } from './cooldowns.js';
import { decodeCursor, encodeCursor, pageOf } from './cursor.js';
import { conferenceNameTaken, scriptError } from './script-errors.js';

// Conference rooms: metadata in Redis (the room hash, its member set, the app's name index and
// room list), changed atomically by Lua scripts; the host media node runs the conference itself
// and learns of destroy and playback controls through its command stream.

const DELETE_ATTEMPTS = 5;

type ScriptReply = [number, string | number | undefined];

/** The room's host node prefix; a malformed id is simply a room that does not exist. */
function hostOf(roomId: string): string {
  const parsed = parseRoomId(roomId);
  if (!parsed) throw new GatewayError('ROOM_NOT_FOUND');
  return parsed.prefix;
}

/** One reply of a pipeline or transaction; a failed command fails the request. */
function resultOf(reply: [Error | null, unknown] | undefined): unknown {
  if (!reply) throw new Error('missing Redis reply');
  if (reply[0]) throw reply[0];
  return reply[1];
}

export async function createRoom(app: FastifyInstance, appId: string, name: string) {
  const { keys } = app;
  const node = await app.nodes.leastLoaded();
  if (!node) {
    // A name already taken is the better answer, whether or not a node could host a new room.
    const existing = await app.redis.hget(keys.appRoomNames(appId), name);
    if (existing !== null) throw conferenceNameTaken(existing);
    throw new GatewayError('NO_MEDIA_NODE');
  }
  const roomId = newRoomId(node.prefix);
  const reply = (await app.scripts.run(
    lua.createRoom(
      {
        roomNames: keys.appRoomNames(appId),
        room: keys.room(roomId),
        appRooms: keys.appRooms(appId),
        events: keys.events(),
      },
      {
        appId,
        name,
        roomId,
        node: node.prefix,
        event: eventArgs(appId, { event: 'conference.created', room_id: roomId, name }),
      },
    ),
  )) as ScriptReply;
  if (reply[0] !== 0) throw scriptError('createRoom', reply, appId);
  return { room_id: roomId };
}

/** The caller's rooms in creation order. */
export async function listRooms(
  app: FastifyInstance,
  appId: string,
  limit: number,
  cursor: string | undefined,
): Promise<RoomList> {
  const after = cursor === undefined ? undefined : decodeCursor(cursor, isRoomId);
  const page = await pageOf(app.redis, app.keys.appRooms(appId), limit, after);
  const pipeline = app.redis.pipeline();
  for (const { id } of page.items) {
    pipeline.hget(app.keys.room(id), 'name').zcard(app.keys.roomMembers(id));
  }
  const replies = (await pipeline.exec()) ?? [];
  const conferences = page.items.flatMap(({ id, score }, i) => {
    const name = resultOf(replies[2 * i]);
    const count = resultOf(replies[2 * i + 1]);
    if (typeof name !== 'string') return []; // destroyed while this page was read
    return [
      {
        room_id: id,
        name,
        members: Number(count),
        created_at: new Date(Math.floor(score / 1000)).toISOString(),
      },
    ];
  });
  return { conferences, cursor: page.next ? encodeCursor(page.next) : '' };
}

/** The room status object; 404 for an unknown room, 403 for another app's. */
export async function getRoom(
  app: FastifyInstance,
  appId: string,
  roomId: string,
): Promise<RoomStatus> {
  hostOf(roomId);
  const replies = await app.redis
    .multi()
    .hgetall(app.keys.room(roomId))
    .zcard(app.keys.roomMembers(roomId))
    .exec();
  const room = resultOf(replies?.[0]) as Record<string, string>;
  const count = resultOf(replies?.[1]);
  if (room.app_id === undefined) throw new GatewayError('ROOM_NOT_FOUND');
  if (room.app_id !== appId) throw new GatewayError('ROOM_FORBIDDEN');
  return {
    room_id: roomId,
    name: room.name ?? '',
    created_at: String(Math.floor(Number(room.created_at) / 1000)),
    members: Number(count),
    playback_status: (room.playback_status ?? 'stopped') as PlaybackStatus,
    playback_volume: Number(room.playback_volume ?? 0),
    playback_urls: JSON.parse(room.playback_urls ?? '[]') as string[],
    playback_operation_id: room.playback_operation_id ?? '',
  };
}

/** Members in join order. Another app's room is 404 here, as the contract says. */
export async function listMembers(
  app: FastifyInstance,
  appId: string,
  roomId: string,
  limit: number,
  cursor: string | undefined,
): Promise<MemberList> {
  hostOf(roomId);
  const after = cursor === undefined ? undefined : decodeCursor(cursor, isSessionId);
  const owner = await app.redis.hget(app.keys.room(roomId), 'app_id');
  if (owner !== appId) throw new GatewayError('ROOM_NOT_FOUND');
  const page = await pageOf(app.redis, app.keys.roomMembers(roomId), limit, after);
  const pipeline = app.redis.pipeline();
  for (const { id } of page.items) {
    pipeline.hmget(app.keys.session(id), 'caller_id', 'did', 'conf_muted');
  }
  const replies = (await pipeline.exec()) ?? [];
  const members = page.items.flatMap(({ id }, i) => {
    const [callerId, did, muted] = resultOf(replies[i]) as (string | null)[];
    if (callerId === null || callerId === undefined) return []; // the session has ended
    return [{ uuid: id, did: did ?? '', caller_id: callerId, muted: muted === '1' }];
  });
  return { room_id: roomId, members, cursor: page.next ? encodeCursor(page.next) : '' };
}

/**
 * Destroys the room atomically with its conference.destroyed (deleteRoom-6.lua) and has its host
 * node kick the members, stop recording and tear down bridges.
 */
export async function deleteRoom(app: FastifyInstance, appId: string, roomId: string) {
  const host = hostOf(roomId);
  const { keys } = app;
  const message: RoomCommandMessage = {
    kind: 'room',
    command: 'destroy',
    room_id: roomId,
    app_id: appId,
    operation_id: newOperationId(),
    args: {},
    issued_at: Date.now(),
  };
  const destroyed = eventArgs(appId, { event: 'conference.destroyed', room_id: roomId });
  for (let attempt = 1; ; attempt++) {
    const members = await app.redis.zrange(keys.roomMembers(roomId), 0, -1);
    const reply = (await app.scripts.run(
      lua.deleteRoom(
        {
          room: keys.room(roomId),
          roomMembers: keys.roomMembers(roomId),
          roomNames: keys.appRoomNames(appId),
          appRooms: keys.appRooms(appId),
          commandStream: keys.commandStream(host),
          events: keys.events(),
        },
        {
          appId,
          roomId,
          command: encodeCommand(message),
          event: destroyed,
          members: members.flatMap((id) => [id, keys.session(id)]),
        },
      ),
    )) as ScriptReply;
    if (reply[0] === 0) break;
    // A member joined between our read of the member set and the script: read it again.
    if (reply[0] !== ScriptCode.ROOM_MEMBERS_CHANGED || attempt === DELETE_ATTEMPTS) {
      throw scriptError('deleteRoom', reply, appId);
    }
  }
  return { room_id: roomId };
}

export type RoomControl = Exclude<RoomCommandName, 'destroy'>;
export type ControlArgs = RoomCommandMessage['args'];

/**
 * A playback control in one round trip (roomControl-6.lua): rate limits, ownership, the room's
 * cooldown, the playback fields, the command for the host node and the control's event, which
 * carries the operation_id of this request's own 202.
 */
export async function controlRoom(
  app: FastifyInstance,
  request: FastifyRequest,
  roomId: string,
  control: RoomControl,
  args: ControlArgs,
): Promise<ControlAccepted> {
  const host = hostOf(roomId);
  const appId = request.app.app_id;
  const operationId = newOperationId();
  const cooldown = control === 'play' ? ROOM_COOLDOWNS.play : ROOM_COOLDOWNS.control;
  const message: RoomCommandMessage = {
    kind: 'room',
    command: control,
    room_id: roomId,
    app_id: appId,
    operation_id: operationId,
    args,
    issued_at: Date.now(),
  };
  const windows = app.rateLimiter.windows(request);
  const { keys } = app;
  const reply = (await app.scripts.run(
    // Named one by one, not spread first (see SessionCommands.submit).
    lua.roomControl(
      {
        ipWindow: windows.keys.ipWindow,
        appWindow: windows.keys.appWindow,
        room: keys.room(roomId),
        cooldown: keys.cooldown('room', roomId, cooldown.name),
        commandStream: keys.commandStream(host),
        events: keys.events(),
      },
      {
        appId,
        ipLimit: windows.args.ipLimit,
        ipWindowMs: windows.args.ipWindowMs,
        appLimit: windows.args.appLimit,
        appWindowMs: windows.args.appWindowMs,
        control,
        cooldownMs: cooldown.ms,
        command: encodeCommand(message),
        operationId,
        value: control === 'play' ? JSON.stringify(args.urls ?? []) : String(args.volume ?? ''),
        event: controlEvent(appId, control, { room_id: roomId, operation_id: operationId }, args),
      },
    ),
  )) as ScriptReply;
  if (reply[0] !== 0) throw scriptError('roomControl', reply, appId);
  return { operation_id: operationId, status: 'in_progress' };
}

/** The conference.play.* event of a control, as the script appends it with the change. */
function controlEvent(
  appId: string,
  control: RoomControl,
  room: { room_id: string; operation_id: string },
  args: ControlArgs,
) {
  switch (control) {
    case 'play':
      return eventArgs(appId, {
        event: 'conference.play.started',
        ...room,
        urls: [...(args.urls ?? [])],
      });
    case 'pause':
      return eventArgs(appId, { event: 'conference.play.paused', ...room });
    case 'stop':
      return eventArgs(appId, { event: 'conference.play.stopped', ...room });
    case 'volume':
      return eventArgs(appId, {
        event: 'conference.play.volume_changed',
        ...room,
        volume: args.volume ?? 0,
      });
  }
}
