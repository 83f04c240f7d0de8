import { createHash, randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

/** Media node prefix: 5 chars of [a-z0-9], the routing key of every session and room id. */
export const NODE_PREFIX_PATTERN = '^[a-z0-9]{5}$';
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
export const SESSION_ID_PATTERN = `^[a-z0-9]{5}-${UUID}$`;
export const ROOM_ID_PATTERN = `^[a-z0-9]{5}-room-${UUID}$`;

const SESSION_ID = new RegExp(SESSION_ID_PATTERN);
const ROOM_ID = new RegExp(ROOM_ID_PATTERN);
const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * Derives a node's prefix from its stable name (a StatefulSet pod name survives restarts), so a
 * restarted node keeps routing the sessions it owned.
 */
export function nodePrefixFor(nodeName: string): string {
  const digest = createHash('sha256').update(nodeName).digest();
  let prefix = '';
  for (let i = 0; i < 5; i++) prefix += BASE36[(digest[i] ?? 0) % 36];
  return prefix;
}

export function sessionId(prefix: string, channelUuid: string): string {
  return `${prefix}-${channelUuid}`;
}

export function roomId(prefix: string, uuid: string = randomUUID()): string {
  return `${prefix}-room-${uuid}`;
}

export interface ParsedSessionId {
  readonly prefix: string;
  /** The FreeSWITCH channel UUID. */
  readonly channelUuid: string;
}

export function parseSessionId(id: string): ParsedSessionId | undefined {
  if (!SESSION_ID.test(id)) return undefined;
  return { prefix: id.slice(0, 5), channelUuid: id.slice(6) };
}

export function parseRoomId(id: string): { readonly prefix: string } | undefined {
  return ROOM_ID.test(id) ? { prefix: id.slice(0, 5) } : undefined;
}

export function isSessionId(id: string): boolean {
  return SESSION_ID.test(id);
}

export function isRoomId(id: string): boolean {
  return ROOM_ID.test(id);
}

/** operation_id of a deferred command: UUID v4. */
export const newOperationId = (): string => randomUUID();

/** event_id / webhook-id: UUID v7, time-ordered, identical on every retry of one event. */
export const newEventId = (): string => uuidv7();
