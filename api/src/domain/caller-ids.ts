import { GatewayError, type LuaScripts, type RedisKeys } from '@voicegw/shared';
import type { Redis } from 'ioredis';

/**
 * The two number lists of an app: `cids`, the caller IDs it may dial from, and `dids`, the
 * called numbers routed to it for inbound calls (also indexed globally, DID → app id).
 */
export type NumberListKind = 'cids' | 'dids';

const appNotFound = (appId: string): GatewayError =>
  new GatewayError('APP_NOT_FOUND', { body: { app_id: appId } });

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
    const reply =
      kind === 'cids'
        ? await this.scripts.run('addCallerIds', [app, this.keys.appCids(appId)], unique)
        : await this.scripts.run(
            'claimDids',
            [app, this.keys.appDids(appId), this.keys.didRoutes()],
            [appId, ...unique],
          );
    if (reply === -1) throw appNotFound(appId);
    const members = reply as unknown[];
    if (members[0] === -2) {
      throw new GatewayError('DID_TAKEN', {
        body: { detail: { did: members[1], app_id: members[2] } },
      });
    }
    return sorted(members as string[]);
  }

  /** Removes one number and returns the remaining list. */
  async remove(kind: NumberListKind, appId: string, number: string): Promise<string[]> {
    const app = this.keys.app(appId);
    if (kind === 'dids') {
      const reply = await this.scripts.run(
        'releaseDid',
        [app, this.keys.appDids(appId), this.keys.didRoutes()],
        [appId, number],
      );
      if (reply === -1) throw appNotFound(appId);
      if (reply === -2) throw new GatewayError('DID_NOT_FOUND');
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
