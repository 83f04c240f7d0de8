import { fail } from 'k6';
import { adminHeaders, api, bodyText, expectStatus, field, type AppAuth } from './http.ts';
import { str } from './env.ts';

/** An application created for a run, with what the scenarios need to act as it. */
export interface TestApp extends AppAuth {
  /** Its `whsec_…` signing secret (admin GET), for the receiver to verify deliveries. */
  readonly secret: string;
  /** The number routed to it (`PUT /admin/apps/{id}/dids`), called by simulated inbound calls. */
  readonly did: string;
}

export interface AppOptions {
  /** Webhook URL of each app; '' (default) disables webhooks. */
  readonly webhookUrl?: (appId: string) => string;
  /** Event whitelist; empty delivers every event. */
  readonly events?: readonly string[];
  /** Route a DID to each app (for inbound calls through the simulator). */
  readonly dids?: boolean;
}

/** The caller ID every app may dial from (its allow-list), `CALLER_ID` to change it. */
export const CALLER_ID = str('CALLER_ID', '0722000000');

/** Per-app `rate_limit` (requests per minute): the contract's maximum. */
const PER_APP_PER_MINUTE = 10_000;

/**
 * Apps needed so that `requestsPerSec` stays under every app's per-minute limit with 20 %
 * headroom: a load test measures the gateway, not its 429s.
 */
export function appsFor(requestsPerSec: number): number {
  return Math.max(1, Math.ceil((requestsPerSec * 60) / (PER_APP_PER_MINUTE * 0.8)));
}

/** A short id of this run, so that apps, rooms and DIDs of concurrent runs never collide. */
export function newRunId(): string {
  return `lt${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;
}

/** DIDs of a run: `073` + 7 digits, consecutive from a random base. */
function didOf(base: number, i: number): string {
  return `073${String((base + i) % 10_000_000).padStart(7, '0')}`;
}

/** Creates `count` apps through the admin API (setup()); fails the run if one cannot be made. */
export function createApps(runId: string, count: number, options: AppOptions = {}): TestApp[] {
  const didBase = Math.floor(Math.random() * 9_000_000);
  const apps: TestApp[] = [];
  for (let i = 0; i < count; i++) {
    const id = `${runId}_${i}`;
    const key = `${runId}-key-${i}-${Math.random().toString(36).slice(2, 12)}`;
    const created = api.post(
      `/admin/apps/${id}`,
      {
        api_key: key,
        rate_limit: PER_APP_PER_MINUTE,
        webhook_url: options.webhookUrl?.(id) ?? '',
        events: options.events ?? [],
      },
      { name: 'admin_create_app', headers: adminHeaders(true) },
    );
    if (!expectStatus(created, 200, 'create app'))
      fail(`app ${id} not created: ${bodyText(created)}`);
    const read = api.get(`/admin/apps/${id}`, { name: 'admin_read_app', headers: adminHeaders() });
    const cids = api.put(`/admin/apps/${id}/cids`, [CALLER_ID], {
      name: 'admin_cids',
      headers: adminHeaders(true),
    });
    if (!expectStatus(cids, 200, 'allow caller id')) fail(`cids of ${id}: ${bodyText(cids)}`);
    const did = didOf(didBase, i);
    if (options.dids) {
      const routed = api.put(`/admin/apps/${id}/dids`, [did], {
        name: 'admin_dids',
        headers: adminHeaders(true),
      });
      if (!expectStatus(routed, 200, 'route did')) fail(`dids of ${id}: ${bodyText(routed)}`);
    }
    apps.push({ id, key, secret: field(read, 'webhook_secret'), did });
  }
  return apps;
}

/** Deletes the run's apps (teardown()); their sessions stop authenticating at once. */
export function deleteApps(apps: readonly TestApp[]): void {
  for (const app of apps) {
    api.del(`/admin/apps/${app.id}`, { name: 'admin_delete_app', headers: adminHeaders() });
  }
}
