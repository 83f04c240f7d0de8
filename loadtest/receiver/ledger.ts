import { Webhook } from 'standardwebhooks';
import { Latencies } from './latencies.js';

export type SignatureCheck = 'valid' | 'invalid' | 'unchecked';

/** One POST the dispatcher made, as it arrived. */
export interface Delivery {
  readonly appId: string;
  /** Epoch ms (fractional) when the request reached the receiver. */
  readonly arrivedAt: number;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: string;
}

/** What k6 reads back for a command it sent: when its `command.result` webhook arrived. */
export interface Receipt {
  readonly command_uid: string;
  readonly operation_id: string;
  readonly arrived_at: string;
  /** Command POST (time in the command_uid) → webhook arrival. */
  readonly e2e_ms: number | null;
  /** Event envelope `timestamp` (published) → webhook arrival: the dispatcher's share. */
  readonly delivery_ms: number | null;
  readonly signature: SignatureCheck;
  /** Deliveries of this event (same webhook-id): more than 1 means a retry or a duplicate. */
  deliveries: number;
}

/**
 * A command_uid that carries the command's POST time (`wl.<epoch ms>.<anything>`), so that the
 * receiver can measure command → webhook without k6 telling it anything else. Both clocks must
 * be the same machine's (or synchronised): run k6 and the receiver side by side.
 */
export const SENT_AT = /^wl\.(\d{13})\./;

interface Envelope {
  readonly event?: unknown;
  readonly session_uuid?: unknown;
  readonly timestamp?: unknown;
  readonly command_uid?: unknown;
  readonly operation_id?: unknown;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Everything the receiver learnt from the deliveries so far. */
export class Ledger {
  private readonly verifiers = new Map<string, Webhook>();
  private readonly receipts = new Map<string, Receipt>();
  private readonly receiptAt = new Map<string, number>();
  private readonly waiters = new Map<string, Set<(receipt: Receipt) => void>>();
  /** webhook-id → arrival, for duplicates. */
  private readonly seen = new Map<string, number>();
  /** session → [last event timestamp, arrival], for the per-session order check. */
  private readonly lastOfSession = new Map<string, [number, number]>();
  readonly delivery = new Latencies();
  readonly e2e = new Latencies();
  private counts = Ledger.zero();

  private static zero() {
    return {
      received: 0,
      duplicates: 0,
      malformed: 0,
      out_of_order: 0,
      by_event: {} as Record<string, number>,
      signatures: { valid: 0, invalid: 0, unchecked: 0 },
    };
  }

  /** The app's `whsec_…` secret (admin GET `webhook_secret`): its deliveries are verified. */
  setSecret(appId: string, secret: string): void {
    this.verifiers.set(appId, new Webhook(secret));
  }

  record(delivery: Delivery): void {
    this.counts.received++;
    const signature = this.verify(delivery);
    this.counts.signatures[signature]++;
    let event: Envelope;
    try {
      event = JSON.parse(delivery.body) as Envelope;
    } catch {
      this.counts.malformed++;
      return;
    }
    const id = delivery.headers['webhook-id'] ?? '';
    if (id && this.seen.has(id)) {
      this.counts.duplicates++;
      const uid = text(event.command_uid);
      const receipt = this.receipts.get(uid);
      if (receipt && text(event.event) === 'command.result') receipt.deliveries++;
      return;
    }
    if (id) this.seen.set(id, delivery.arrivedAt);
    const name = text(event.event) || 'unknown';
    this.counts.by_event[name] = (this.counts.by_event[name] ?? 0) + 1;
    const published = Date.parse(text(event.timestamp));
    const deliveryMs = Number.isFinite(published) ? delivery.arrivedAt - published : null;
    if (deliveryMs !== null) this.delivery.add(deliveryMs);
    this.checkOrder(text(event.session_uuid), published, delivery.arrivedAt);
    if (name === 'command.result') this.receipt(event, delivery, deliveryMs, signature);
  }

  /** The receipt of a command, now or when it arrives within `waitMs`. */
  wait(commandUid: string, waitMs: number): Promise<Receipt | undefined> {
    const known = this.receipts.get(commandUid);
    if (known || waitMs <= 0) return Promise.resolve(known);
    return new Promise((resolve) => {
      const waiters = this.waiters.get(commandUid) ?? new Set();
      const done = (receipt: Receipt | undefined): void => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0) this.waiters.delete(commandUid);
        resolve(receipt);
      };
      const timer = setTimeout(() => done(undefined), waitMs);
      waiters.add(done);
      this.waiters.set(commandUid, waiters);
    });
  }

  stats() {
    return {
      ...this.counts,
      delivery_ms: this.delivery.summary(),
      e2e_ms: this.e2e.summary(),
    };
  }

  reset(): void {
    this.counts = Ledger.zero();
    this.delivery.clear();
    this.e2e.clear();
    this.receipts.clear();
    this.receiptAt.clear();
    this.seen.clear();
    this.lastOfSession.clear();
  }

  /** Forgets receipts, ids and sessions older than `ttlMs`: memory stays flat on long runs. */
  prune(ttlMs: number, now = Date.now()): void {
    const old = now - ttlMs;
    for (const [uid, at] of this.receiptAt) {
      if (at >= old) break; // insertion order is arrival order
      this.receiptAt.delete(uid);
      this.receipts.delete(uid);
    }
    for (const [id, at] of this.seen) {
      if (at >= old) break;
      this.seen.delete(id);
    }
    for (const [session, [, at]] of this.lastOfSession) {
      if (at < old) this.lastOfSession.delete(session);
    }
  }

  private verify(delivery: Delivery): SignatureCheck {
    const verifier = this.verifiers.get(delivery.appId);
    if (!verifier) return 'unchecked';
    try {
      verifier.verify(delivery.body, {
        'webhook-id': delivery.headers['webhook-id'] ?? '',
        'webhook-timestamp': delivery.headers['webhook-timestamp'] ?? '',
        'webhook-signature': delivery.headers['webhook-signature'] ?? '',
      });
      return 'valid';
    } catch {
      return 'invalid';
    }
  }

  /** A session's events must arrive in the order they were published (DESIGN: per-app order). */
  private checkOrder(session: string, published: number, arrivedAt: number): void {
    if (!session || !Number.isFinite(published)) return;
    const last = this.lastOfSession.get(session);
    if (last && published < last[0]) this.counts.out_of_order++;
    this.lastOfSession.delete(session);
    this.lastOfSession.set(session, [Math.max(published, last?.[0] ?? published), arrivedAt]);
  }

  private receipt(
    event: Envelope,
    delivery: Delivery,
    deliveryMs: number | null,
    signature: SignatureCheck,
  ): void {
    const uid = text(event.command_uid);
    if (!uid || this.receipts.has(uid)) return;
    const sent = SENT_AT.exec(uid)?.[1];
    const e2eMs = sent === undefined ? null : delivery.arrivedAt - Number(sent);
    if (e2eMs !== null) this.e2e.add(e2eMs);
    const receipt: Receipt = {
      command_uid: uid,
      operation_id: text(event.operation_id),
      arrived_at: new Date(delivery.arrivedAt).toISOString(),
      e2e_ms: e2eMs === null ? null : Math.round(e2eMs * 100) / 100,
      delivery_ms: deliveryMs === null ? null : Math.round(deliveryMs * 100) / 100,
      signature,
      deliveries: 1,
    };
    this.receipts.set(uid, receipt);
    this.receiptAt.set(uid, delivery.arrivedAt);
    for (const resolve of [...(this.waiters.get(uid) ?? [])]) resolve(receipt);
  }
}
