import { lua, type Logger, type LuaScripts, type RedisKeys } from '@voicegw/shared';
import type { Redis } from 'ioredis';
import type { AppRecord } from '../domain/apps.js';

/**
 * Whether an app's webhook works: the first failure after a success is remembered in the app's
 * hash, a success forgets it, and an app failing for `disableAfterMs` without a success is
 * disabled (admin GET shows `disabled: true` until its configuration is POSTed again).
 */
export class AppHealth {
  constructor(
    private readonly redis: Redis,
    private readonly scripts: LuaScripts,
    private readonly keys: RedisKeys,
    private readonly disableAfterMs: number,
    private readonly log: Logger,
  ) {}

  /** Apps whose last attempt here failed (the cached app record may predate the failure). */
  private readonly failing = new Set<string>();

  /** Whether a 2xx for this app has a failure to forget (see `succeeded`). */
  wasFailing(app: AppRecord): boolean {
    return this.failing.has(app.app_id) || app.webhook_failing_since !== undefined;
  }

  /** After a 2xx of an app that `wasFailing`: forgets the failure. */
  async succeeded(app: AppRecord): Promise<void> {
    this.failing.delete(app.app_id);
    await this.redis.hdel(this.keys.app(app.app_id), 'webhook_failing_since');
  }

  /** After a failed attempt; true when this failure disabled the app. */
  async failed(appId: string): Promise<boolean> {
    this.failing.add(appId);
    const result = await this.scripts.run(
      lua.webhookFailed(
        { app: this.keys.app(appId) },
        { now: Date.now(), disableAfterMs: this.disableAfterMs },
      ),
    );
    if (Number(result) !== 1) return false;
    this.log.warn(
      { app_id: appId },
      'webhook failing without a success for too long: app disabled',
    );
    // Every api replica and dispatcher drops its cached copy.
    await this.redis.publish(this.keys.appsChanged(), appId);
    return true;
  }
}
