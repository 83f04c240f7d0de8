import type { Redis } from 'ioredis';
import { EVENT_FIELDS } from '../events/publisher.js';
import type { RedisKeys } from '../redis/keys.js';
import { field } from './router.js';
import { streamPosition } from './shard.js';
import type { BusEvent } from './types.js';

// Consumer-group chores on one shard stream, for its lease holder.

/** Consumer group and consumer of every shard: whoever holds the shard's lease reads as it. */
export const SHARD_GROUP = 'dispatcher';
export const SHARD_CONSUMER = 'holder';
const GROUP = SHARD_GROUP;
const CONSUMER = SHARD_CONSUMER;
const PAGE = 500;

export type StreamEntry = [id: string, fields: string[] | null];

export async function ensureGroup(redis: Redis, stream: string): Promise<void> {
  try {
    // From the start: entries nobody has read yet were never delivered.
    await redis.xgroup('CREATE', stream, GROUP, '0', 'MKSTREAM');
  } catch (err) {
    if (!String(err).includes('BUSYGROUP')) throw err;
  }
}

/** The entries a previous holder read and did not acknowledge, oldest first, page by page. */
export async function* pendingEntries(redis: Redis, stream: string): AsyncGenerator<StreamEntry[]> {
  let after = '0-0';
  for (;;) {
    const reply = (await redis.xreadgroup(
      'GROUP',
      GROUP,
      CONSUMER,
      'COUNT',
      PAGE,
      'STREAMS',
      stream,
      after,
    )) as [string, StreamEntry[]][] | null;
    const entries = reply?.[0]?.[1] ?? [];
    if (entries.length === 0) return;
    yield entries;
    after = entries[entries.length - 1]?.[0] ?? after;
  }
}

/** Pending entries idle for longer than `idleMs` (reclaimed, which resets their idle time). */
export async function* strandedEntries(
  redis: Redis,
  stream: string,
  idleMs: number,
): AsyncGenerator<StreamEntry[]> {
  let cursor = '0-0';
  do {
    const [next, entries] = (await redis.xautoclaim(
      stream,
      GROUP,
      CONSUMER,
      idleMs,
      cursor,
      'COUNT',
      PAGE,
    )) as [string, StreamEntry[], string[]?];
    if (entries.length > 0) yield entries;
    cursor = next;
  } while (cursor !== '0-0');
}

/** Deletes the entries below the oldest unacknowledged one (or up to the last one read). */
export async function trimAcknowledged(redis: Redis, stream: string): Promise<void> {
  const summary = (await redis.xpending(stream, GROUP)) as [number, string | null, ...unknown[]];
  let floor = summary[0] > 0 ? summary[1] : null;
  if (!floor) {
    const groups = (await redis.xinfo('GROUPS', stream)) as unknown[][];
    for (const flat of groups) {
      const group = toRecord(flat);
      if (group.name === GROUP) floor = String(group['last-delivered-id']);
    }
  }
  if (floor && floor !== '0-0') await redis.xtrim(stream, 'MINID', floor);
}

function toRecord(flat: unknown[]): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (let i = 0; i < flat.length - 1; i += 2) record[String(flat[i])] = flat[i + 1];
  return record;
}

/** The shard count is fixed for a gateway: changing it would move apps between streams. */
export async function checkShardCount(
  redis: Redis,
  keys: RedisKeys,
  shards: number,
): Promise<void> {
  const key = keys.eventShardCount();
  await redis.set(key, String(shards), 'NX');
  const stored = Number(await redis.get(key));
  if (stored !== shards) {
    throw new Error(
      `EVENT_SHARDS is ${shards} but this gateway's event bus has ${stored} shards; ` +
        `use ${stored}, or drain the bus and delete ${key} to change it`,
    );
  }
}

/**
 * Stream entries as bus events of shard `name`, minus those in `held`; `unreadable` lists the
 * entries without an app or body (deleted by a trim, or malformed).
 */
export function toEvents(
  name: string,
  entries: readonly StreamEntry[],
  held: ReadonlySet<string>,
): { events: BusEvent[]; unreadable: string[] } {
  const events: BusEvent[] = [];
  const unreadable: string[] = [];
  for (const [id, fields] of entries) {
    if (held.has(id)) continue;
    const appId = fields && field(fields, EVENT_FIELDS.app);
    const body = fields && field(fields, EVENT_FIELDS.body);
    if (appId && body)
      events.push({ partition: name, position: streamPosition(id), id, appId, body });
    else unreadable.push(id);
  }
  return { events, unreadable };
}
