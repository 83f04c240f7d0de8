import { lua, type LuaScripts, type RedisKeys } from '@voicegw/shared';
import type { Redis } from 'ioredis';
import type { LaneEntry } from './lanes.js';

/** What "retry now" did to an app's retry lane. */
export type LaneRetry =
  | { readonly kind: 'nothing_waiting' }
  | {
      readonly kind: 'due_now';
      /** Events in the lane, the head included. */
      readonly waiting: number;
      /** The head as it was before: its attempts, last answer and scheduled time. */
      readonly head: LaneEntry;
    };

/** Reading the head and swapping it lose to a settling attempt at most this often in a row. */
const TRIES = 3;

/**
 * Makes an app's retry lane head due now, for an operator whose receiver is back: the dispatcher
 * that owns the app's partition polls the due set and attempts the head within
 * LANE_POLL_INTERVAL_MS, then the events behind it. The head keeps the time the schedule had
 * (`scheduled_at`), so an attempt that fails again does not use up the schedule.
 */
export async function retryLaneNow(
  redis: Redis,
  scripts: LuaScripts,
  keys: RedisKeys,
  appId: string,
): Promise<LaneRetry> {
  for (let tries = 0; tries < TRIES; tries++) {
    const raw = await redis.lindex(keys.webhookLane(appId), 0);
    if (!raw) return { kind: 'nothing_waiting' };
    const head = JSON.parse(raw) as LaneEntry;
    const now = Date.now();
    const due =
      head.next_at > now
        ? JSON.stringify({ ...head, next_at: now, scheduled_at: head.scheduled_at ?? head.next_at })
        : raw;
    const waiting = Number(
      await scripts.run(
        lua.retryLaneNow(
          { lane: keys.webhookLane(appId), lanesDue: keys.webhookLanesDue(head.partition) },
          { appId, now, head: raw, dueHead: due },
        ),
      ),
    );
    if (waiting === 0) return { kind: 'nothing_waiting' };
    if (waiting > 0) return { kind: 'due_now', waiting, head };
  }
  throw new Error(`the retry lane head of ${appId} kept changing`);
}
