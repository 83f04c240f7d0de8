import type { ChainableCommander } from 'ioredis';
import { EVENT_FIELDS } from '../events/publisher.js';
import type { RedisKeys } from '../redis/keys.js';
import type { IngestEntry, RouterSink } from './router.js';
import { shardOf } from './shard.js';

/** Puts each event on the shard stream of its app, in the router's transaction. */
export class ShardStreamSink implements RouterSink {
  constructor(
    private readonly keys: RedisKeys,
    private readonly shards: number,
  ) {}

  async forward(entries: readonly IngestEntry[], tx: ChainableCommander): Promise<void> {
    for (const { id, appId, body } of entries) {
      const stream = this.keys.eventShard(shardOf(appId, this.shards));
      tx.xadd(stream, '*', EVENT_FIELDS.app, appId, EVENT_FIELDS.body, body, 'src', id);
    }
  }

  async close(): Promise<void> {}
}
