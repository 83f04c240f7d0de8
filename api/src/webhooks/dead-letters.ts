import { lua, type LuaScripts, type RedisKeys } from '@voicegw/shared';
import type { Redis } from 'ioredis';
import type { DeadLetter } from './lanes.js';

export interface DeadLetterPage {
  readonly total: number;
  readonly letters: readonly DeadLetter[];
}

/** An app's dead letters as the admin API reads and replays them. */
export class DeadLetters {
  constructor(
    private readonly redis: Redis,
    private readonly scripts: LuaScripts,
    private readonly keys: RedisKeys,
  ) {}

  /** Oldest first, from `offset`. */
  async list(appId: string, offset: number, limit: number): Promise<DeadLetterPage> {
    const key = this.keys.webhookDeadLetters(appId);
    const replies = await this.redis
      .multi()
      .llen(key)
      .lrange(key, offset, offset + limit - 1)
      .exec();
    if (!replies) throw new Error('dead-letter read aborted');
    const [[lenError, total], [rangeError, raws]] = replies as [
      [Error | null, number],
      [Error | null, string[]],
    ];
    const failure = lenError ?? rangeError;
    if (failure) throw failure;
    return { total, letters: raws.map((raw) => JSON.parse(raw) as DeadLetter) };
  }

  /**
   * Puts dead letters (all, or those named) back at the end of the app's retry lane, in their
   * order, and tells the dispatchers; the one that owns the app delivers them with their original
   * webhook-id. Returns how many.
   */
  async replay(appId: string, eventIds?: readonly string[]): Promise<number> {
    const { keys } = this;
    const newest = await this.redis.lindex(keys.webhookDeadLetters(appId), -1);
    if (!newest) return 0;
    // The lane is worked by the owner of the partition the app's events come from.
    const { partition } = JSON.parse(newest) as DeadLetter;
    const replayed = await this.scripts.run(
      lua.replayDeadLetters(
        {
          deadLetters: keys.webhookDeadLetters(appId),
          lane: keys.webhookLane(appId),
          laneIds: keys.webhookLaneIds(appId),
          lanesDue: keys.webhookLanesDue(partition),
        },
        { appId, now: Date.now(), eventIds: eventIds ? JSON.stringify(eventIds) : '' },
      ),
    );
    // A lost announcement costs a wait for the dispatcher's idle poll, never the events.
    if (Number(replayed) > 0) await this.redis.publish(keys.webhookLanesWoken(), partition);
    return Number(replayed);
  }
}
