import type {
  AdminHealth,
  AppConfig,
  AppConfigRequest,
  AppDeleted,
  AppSaved,
  CallerIdDeleted,
  CallerIdList,
  DeadLetterList,
  DeadLetterQuery,
  DidDeleted,
  DidList,
  RecentErrors,
  ReplayRequest,
  ReplayResult,
  WebhookRetryResult,
} from './contract.js';
import { Http, type HttpOptions } from './http.js';

export interface VoiceGatewayAdminOptions extends HttpOptions {
  /** The server's ADMIN_API_KEY. */
  readonly adminKey: string;
}

const seg = encodeURIComponent;

/** The admin API: applications, their caller IDs and DIDs, webhook lanes, dead letters, health. */
export class VoiceGatewayAdmin {
  readonly apps: Apps;
  readonly callerIds: NumberLists<CallerIdList, CallerIdDeleted>;
  readonly dids: NumberLists<DidList, DidDeleted>;
  readonly webhooks: WebhookLanes;
  readonly deadLetters: DeadLetters;
  private readonly http: Http;

  constructor(options: VoiceGatewayAdminOptions) {
    this.http = new Http(options, { 'x-admin-api-key': options.adminKey });
    this.apps = new Apps(this.http);
    this.callerIds = new NumberLists(this.http, 'cids');
    this.dids = new NumberLists(this.http, 'dids');
    this.webhooks = new WebhookLanes(this.http);
    this.deadLetters = new DeadLetters(this.http);
  }

  health(): Promise<AdminHealth> {
    return this.http.json({ method: 'GET', path: '/admin/health' });
  }
  recentErrors(): Promise<RecentErrors> {
    return this.http.json({ method: 'GET', path: '/admin/recent-errors' });
  }
}

export class Apps {
  constructor(private readonly http: Http) {}

  /** Creates the app or overwrites its configuration. */
  save(appId: string, config: AppConfigRequest = {}): Promise<AppSaved> {
    return this.http.json({ method: 'POST', path: `/admin/apps/${seg(appId)}`, body: config });
  }
  /** The configuration, with api_key and webhook_secret. */
  get(appId: string): Promise<AppConfig> {
    return this.http.json({ method: 'GET', path: `/admin/apps/${seg(appId)}` });
  }
  delete(appId: string): Promise<AppDeleted> {
    return this.http.json({ method: 'DELETE', path: `/admin/apps/${seg(appId)}` });
  }
}

/** An app's caller-ID allow-list (`cids`) or its routed numbers (`dids`). */
export class NumberLists<List, Deleted> {
  constructor(
    private readonly http: Http,
    private readonly kind: 'cids' | 'dids',
  ) {}

  /** Adds numbers (Israeli domestic format); existing ones stay. Answers the whole list. */
  add(appId: string, numbers: readonly string[]): Promise<List> {
    return this.http.json({ method: 'PUT', path: this.path(appId), body: numbers });
  }
  list(appId: string): Promise<List> {
    return this.http.json({ method: 'GET', path: this.path(appId) });
  }
  remove(appId: string, number: string): Promise<Deleted> {
    return this.http.json({ method: 'DELETE', path: `${this.path(appId)}/${seg(number)}` });
  }
  private path(appId: string): string {
    return `/admin/apps/${seg(appId)}/${this.kind}`;
  }
}

/** An app's webhook retry lane. */
export class WebhookLanes {
  constructor(private readonly http: Http) {}

  /**
   * After a receiver is fixed: the app's waiting webhooks are attempted now rather than at the
   * head event's next scheduled attempt, then the events behind it, in order. An attempt that
   * fails again does not use up the schedule. `waiting: 0, head: null` when nothing waits.
   */
  retry(appId: string): Promise<WebhookRetryResult> {
    return this.http.json({ method: 'POST', path: `/admin/apps/${seg(appId)}/webhooks/retry` });
  }
}

export class DeadLetters {
  constructor(private readonly http: Http) {}

  list(appId: string, query: DeadLetterQuery = {}): Promise<DeadLetterList> {
    return this.http.json({ method: 'GET', path: `/admin/apps/${seg(appId)}/dead-letters`, query });
  }
  /** Sends dead letters again (all, or `event_ids`), in order, through the app's lane. */
  replay(appId: string, request: ReplayRequest = {}): Promise<ReplayResult> {
    return this.http.json({
      method: 'POST',
      path: `/admin/apps/${seg(appId)}/dead-letters/replay`,
      body: request,
    });
  }
}
