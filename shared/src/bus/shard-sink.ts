import type { RedisKeys } from '../redis/keys.js';
import type { IngestEntry, RouterSink, ShardAppend } from './router.js';
import { shardOf } from './shard.js';

/** Puts each event on the shard stream of its app, in the router's step. */
export class ShardStreamSink implements RouterSink {
  constructor(
    private readonly keys: RedisKeys,
    private readonly shards: number,
  ) {}

  async forward(entries: readonly IngestEntry[]): Promise<readonly ShardAppend[]> {
    return entries.map((entry) => ({
      stream: this.keys.eventShard(shardOf(entry.appId, this.shards)),
      entry,
    }));
  }

  async close(): Promise<void> {}
}
