/**
 * Stable shard of an app id: FNV-1a (32 bit) modulo the shard count. Any process computes the
 * same shard for the same app, across restarts and versions, which keeps an app in one stream.
 */
export function shardOf(appId: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < appId.length; i++) {
    hash ^= appId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % shards;
}

/** A stream entry id `<ms>-<seq>` as a position that orders correctly as a string. */
export function streamPosition(id: string): string {
  const [ms = '0', seq = '0'] = id.split('-');
  return `${ms.padStart(16, '0')}-${seq.padStart(20, '0')}`;
}

/** A Kafka offset as a position that orders correctly as a string. */
export function offsetPosition(offset: string): string {
  return offset.padStart(20, '0');
}

/** Milliseconds part of a stream entry id. */
export function streamIdTime(id: string): number {
  return Number(id.split('-')[0] ?? 0);
}
