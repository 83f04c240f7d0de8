import { lua, failureCode, type LuaScripts, type RedisKeys } from '@voicegw/shared';
import { GatewayError } from '../errors/catalogue.js';
import type { Redis } from 'ioredis';
import { appNotFound, scriptError } from './script-errors.js';

/**
 * The two number lists of an app: `cids`, the caller IDs it may dial from, and `dids`, the
 * called numbers routed to it for inbound calls (also indexed globally, DID → app id).
 */
export type NumberListKind = 'cids' | 'dids';

const sorted = (members: readonly string[]): string[] => [...members].sort();

/** Numbers are compared as strings; they share the Israeli domestic format. */
export class NumberLists {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly scripts: LuaScripts,
  ) {}

  private listKey(kind: NumberListKind, appId: string): string {
    return kind === 'cids' ? this.keys.appCids(appId) : this.keys.appDids(appId);
  }

  /** The app's list, sorted; APP_NOT_FOUND for an unknown app. */
  async list(kind: NumberListKind, appId: string): Promise<string[]> {
    const replies = await this.redis
      .multi()
      .exists(this.keys.app(appId))
      .smembers(this.listKey(kind, appId))
      .exec();
    const [exists, members] = (replies ?? []).map(([error, value]) => {
      if (error) throw error;
      return value;
    });
    if (exists !== 1) throw appNotFound(appId);
    return sorted(members as string[]);
  }

  /**
   * Appends numbers (nothing is removed) and returns the resulting list. DIDs are claimed
   * atomically: one routed to another app fails the whole request with DID_TAKEN.
   */
  async add(kind: NumberListKind, appId: string, numbers: readonly string[]): Promise<string[]> {
    const unique = [...new Set(numbers)];
    const app = this.keys.app(appId);
    const run =
      kind === 'cids'
        ? lua.addCallerIds({ app, callerIds: this.keys.appCids(appId) }, { numbers: unique })
        : lua.claimDids(
            { app, dids: this.keys.appDids(appId), didRoutes: this.keys.didRoutes() },
            { appId, dids: unique },
          );
    const reply = await this.scripts.run(run);
    if (failureCode(reply) !== undefined) throw scriptError(run.name, reply, appId);
    return sorted(reply as string[]);
  }

  /** Removes one number and returns the remaining list. */
  async remove(kind: NumberListKind, appId: string, number: string): Promise<string[]> {
    const app = this.keys.app(appId);
    if (kind === 'dids') {
      const reply = await this.scripts.run(
        lua.releaseDid(
          { app, dids: this.keys.appDids(appId), didRoutes: this.keys.didRoutes() },
          { appId, did: number },
        ),
      );
      if (failureCode(reply) !== undefined) throw scriptError('releaseDid', reply, appId);
      return sorted(reply as string[]);
    }
    const key = this.keys.appCids(appId);
    const replies = await this.redis.multi().exists(app).srem(key, number).smembers(key).exec();
    const [exists, removed, members] = (replies ?? []).map(([error, value]) => {
      if (error) throw error;
      return value;
    });
    if (exists !== 1) throw appNotFound(appId);
    if (removed !== 1) throw new GatewayError('CID_NOT_FOUND');
    return sorted(members as string[]);
  }
}
