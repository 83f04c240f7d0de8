import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { RedisKeys } from '../redis/keys.js';
import type { LuaScripts } from '../redis/scripts.js';

/** What the dead-node sweep needs, in whichever process runs it (media node or dispatcher). */
export interface ClusterContext {
  /** Commands (with a timeout); its connection's drops reset the sweeper's observations. */
  readonly redis: Redis;
  readonly keys: RedisKeys;
  readonly scripts: LuaScripts;
  readonly log: Logger;
  /** How long an ended session stays readable (SESSION_GRACE_SEC) before its record goes. */
  readonly sessionGraceMs: number;
}
