import { randomBytes } from 'node:crypto';
import type { EventName, RedisKeys } from '@voicegw/shared';
import type { Redis } from 'ioredis';

/** An application's configuration as stored in its Redis hash. */
export interface AppRecord {
  readonly app_id: string;
  /** Empty string: webhooks disabled. */
  readonly webhook_url: string;
  readonly api_key: string;
  /** Requests per minute; 0 means the default of 100. */
  readonly rate_limit: number;
  /** Whitelist of event names; empty means every event. */
  readonly events: readonly EventName[];
  /** Standard Webhooks signing secret, `whsec_` + base64. */
  readonly webhook_secret: string;
  /** ISO-8601 creation time. */
  readonly created_at: string;
  /**
   * Set by the dispatcher once the webhook has failed for WEBHOOK_DISABLE_AFTER_MS without a
   * success; saving the configuration (POST) rewrites the hash and so re-enables the app.
   */
  readonly disabled?: boolean;
  /** Epoch ms of the first webhook failure since the last success (dispatcher bookkeeping). */
  readonly webhook_failing_since?: number;
}

/** What an admin may set; every field is optional (`POST /admin/apps/{app_id}`). */
export type AppConfigInput = Partial<
  Pick<AppRecord, 'webhook_url' | 'api_key' | 'rate_limit' | 'events' | 'webhook_secret'>
>;

/** A generated API key: `vgk_` and 32 base64url characters (192 random bits). */
export const generateApiKey = (): string => `vgk_${randomBytes(24).toString('base64url')}`;

/** A Standard Webhooks signing secret: `whsec_` and the base64 of 24 random bytes. */
export const generateWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/**
 * The configuration after a create or overwrite: given fields replace the current ones and
 * omitted fields keep them; on create, omitted fields take their defaults and the API key and
 * webhook secret are generated. `created_at` is set once.
 */
export function configureApp(
  appId: string,
  current: AppRecord | undefined,
  input: AppConfigInput,
  now: Date,
): AppRecord {
  return {
    app_id: appId,
    webhook_url: input.webhook_url ?? current?.webhook_url ?? '',
    api_key: input.api_key ?? current?.api_key ?? generateApiKey(),
    rate_limit: input.rate_limit ?? current?.rate_limit ?? 0,
    events: input.events ?? current?.events ?? [],
    webhook_secret: input.webhook_secret ?? current?.webhook_secret ?? generateWebhookSecret(),
    created_at: current?.created_at || now.toISOString(),
  };
}

/** The per-minute limit an app's `rate_limit` means: 0 → 100. */
export const effectiveRateLimit = (app: Pick<AppRecord, 'rate_limit'>): number =>
  app.rate_limit > 0 ? app.rate_limit : 100;

export function parseApp(appId: string, raw: Record<string, string>): AppRecord | undefined {
  if (raw.api_key === undefined) return undefined;
  return {
    app_id: appId,
    webhook_url: raw.webhook_url ?? '',
    api_key: raw.api_key,
    rate_limit: Number(raw.rate_limit ?? 0),
    events: raw.events ? (JSON.parse(raw.events) as EventName[]) : [],
    webhook_secret: raw.webhook_secret ?? '',
    created_at: raw.created_at ?? '',
    disabled: raw.disabled_at !== undefined,
    ...(raw.webhook_failing_since
      ? { webhook_failing_since: Number(raw.webhook_failing_since) }
      : {}),
  };
}

export function serializeApp(app: AppRecord): Record<string, string> {
  return {
    webhook_url: app.webhook_url,
    api_key: app.api_key,
    rate_limit: String(app.rate_limit),
    events: JSON.stringify(app.events),
    webhook_secret: app.webhook_secret,
    created_at: app.created_at,
  };
}

/** Reads and writes app configuration in Redis; announces every change for cache invalidation. */
export class AppStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async get(appId: string): Promise<AppRecord | undefined> {
    return parseApp(appId, await this.redis.hgetall(this.keys.app(appId)));
  }

  /** Replaces the stored configuration and tells every api node to drop its cached copy. */
  async save(app: AppRecord): Promise<void> {
    const key = this.keys.app(app.app_id);
    await this.redis
      .multi()
      .del(key)
      .hset(key, serializeApp(app))
      .publish(this.keys.appsChanged(), app.app_id)
      .exec();
  }

  /**
   * Deletes the app, its caller-ID and DID lists and its undelivered webhooks (retry lane and
   * dead letters); false when it did not exist.
   */
  async delete(appId: string): Promise<boolean> {
    const dids = await this.redis.smembers(this.keys.appDids(appId));
    const tx = this.redis
      .multi()
      .del(this.keys.app(appId))
      .del(this.keys.appCids(appId), this.keys.appDids(appId))
      .del(
        this.keys.webhookLane(appId),
        this.keys.webhookLaneIds(appId),
        this.keys.webhookDeadLetters(appId),
      );
    if (dids.length > 0) tx.hdel(this.keys.didRoutes(), ...dids);
    const replies = await tx.publish(this.keys.appsChanged(), appId).exec();
    return replies?.[0]?.[1] === 1;
  }
}
