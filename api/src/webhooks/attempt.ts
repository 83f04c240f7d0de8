import type { Logger } from '@voicegw/shared';
import type { AppDirectory } from '../domain/app-directory.js';
import type { AppHealth } from './app-health.js';
import type { Limit } from './limit.js';
import type { DispatcherMetrics } from './metrics.js';
import type { WebhookSender } from './sender.js';
import { webhookHeaders } from './signature.js';

/** The parts of an event an attempt needs. */
export interface Deliverable {
  readonly event_id: string;
  readonly event: string;
  readonly body: string;
}

/** What the worker does next with an event, after the app's current configuration had its say. */
export type Attempt =
  | { readonly kind: 'skipped'; readonly outcome: 'filtered' | 'dropped' }
  | { readonly kind: 'disabled' }
  | { readonly kind: 'delivered' }
  | { readonly kind: 'gone'; readonly status: number; readonly disabledNow: boolean }
  | {
      readonly kind: 'failed';
      readonly status: number | null;
      readonly error: string;
      readonly retryAfterMs?: number;
      /** This failure disabled the app. */
      readonly disabledNow: boolean;
    };

export interface AttemptDeps {
  readonly apps: AppDirectory;
  readonly sender: WebhookSender;
  readonly health: AppHealth;
  readonly metrics: DispatcherMetrics;
  readonly limit: Limit;
  readonly log: Logger;
}

/**
 * One delivery attempt under the app's configuration as it is now: an unknown app or an empty
 * webhook_url drops the event, the `events` whitelist filters it, a disabled app dead-letters
 * it; otherwise it is signed and POSTed, and the app's webhook health is updated.
 */
export async function attemptDelivery(
  deps: AttemptDeps,
  appId: string,
  event: Deliverable,
): Promise<Attempt> {
  // A cached app costs no promise: this runs for every webhook.
  const cached = deps.apps.fresh(appId);
  const app = (cached ? cached.app : await deps.apps.get(appId))?.record;
  if (!app || app.webhook_url === '') return { kind: 'skipped', outcome: 'dropped' };
  if (app.events.length > 0 && !(app.events as readonly string[]).includes(event.event)) {
    return { kind: 'skipped', outcome: 'filtered' };
  }
  if (app.disabled) return { kind: 'disabled' };

  const started = performance.now();
  // Encoded once: signed and sent as these bytes.
  const body = Buffer.from(event.body);
  const result = await deps.limit.run(() =>
    deps.sender.send(
      app.webhook_url,
      webhookHeaders(app.webhook_secret, event.event_id, body),
      body,
    ),
  );
  deps.metrics.timeAttempt(result.kind, (performance.now() - started) / 1000);
  deps.metrics.count(result.kind, event.event);

  if (result.kind === 'delivered') {
    // Most deliveries have no failure to forget, and skip the call.
    if (deps.health.wasFailing(app)) {
      await deps.health.succeeded(app).catch((err: unknown) => deps.log.debug({ err }, 'health'));
    }
    return { kind: 'delivered' };
  }
  deps.log.info(
    { app_id: appId, event_id: event.event_id, event: event.event, status: result.status },
    result.kind === 'gone' ? 'webhook answered 410 Gone' : 'webhook attempt failed',
  );
  const disabledNow = await deps.health.failed(appId).catch((err: unknown) => {
    deps.log.warn({ err, app_id: appId }, 'recording the webhook failure failed');
    return false;
  });
  if (result.kind === 'gone') return { kind: 'gone', status: result.status, disabledNow };
  return {
    kind: 'failed',
    status: result.status,
    error: result.error,
    ...(result.retryAfterMs === undefined ? {} : { retryAfterMs: result.retryAfterMs }),
    disabledNow,
  };
}
