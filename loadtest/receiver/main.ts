/**
 * The loadtest receiver: the webhook endpoint of the apps k6 creates (webhook-latency.ts), and
 * the audio the scenarios play. `npx tsx loadtest/receiver/main.ts`; loadtest/README.md.
 */
import { loadReceiverConfig, type ReceiverConfig } from './config.js';
import { Ledger } from './ledger.js';
import { startReceiver } from './server.js';

let config: ReceiverConfig;
try {
  config = loadReceiverConfig();
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
}
const ledger = new Ledger();
const server = await startReceiver(ledger, {
  host: config.RECEIVER_HOST,
  port: config.RECEIVER_PORT,
});
console.log(`loadtest receiver on http://${config.RECEIVER_HOST}:${server.port}
  webhooks   POST /hooks/{app_id}      (Standard Webhooks signatures checked once a secret is set)
  secrets    PUT  /apps/{app_id}/secret {"secret":"whsec_…"}
  receipts   GET  /receipts/{command_uid}?wait_ms=2000
  stats      GET  /stats   ·   POST /reset
  audio      GET  /audio/tone-<ms>.wav`);

const summary = (): string => {
  const s = ledger.stats();
  const p = (l: typeof s.e2e_ms): string => (l ? `p50 ${l.p50} p99 ${l.p99} max ${l.max}` : '—');
  return (
    `received ${s.received} (duplicates ${s.duplicates}, out of order ${s.out_of_order}, ` +
    `bad signatures ${s.signatures.invalid}) · delivery ms ${p(s.delivery_ms)} · ` +
    `command→webhook ms ${p(s.e2e_ms)}`
  );
};

let reported = 0;
const timer = setInterval(
  () => {
    ledger.prune(config.RECEIPT_TTL_SEC * 1000);
    const received = ledger.stats().received;
    if (config.REPORT_INTERVAL_SEC > 0 && received !== reported) {
      reported = received;
      console.log(summary());
    }
  },
  Math.max(1, config.REPORT_INTERVAL_SEC || 10) * 1000,
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    clearInterval(timer);
    console.log(`final: ${summary()}`);
    void server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error('closing failed', err);
        process.exit(1);
      },
    );
  });
}
