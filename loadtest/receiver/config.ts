import { loadConfig } from '@voicegw/shared';
import { Type, type Static } from 'typebox';

/** Environment of the loadtest receiver (loadtest/README.md lists the same variables). */
export const ReceiverEnv = Type.Object({
  RECEIVER_HOST: Type.String({ default: '127.0.0.1' }),
  RECEIVER_PORT: Type.Integer({ minimum: 0, maximum: 65_535, default: 8099 }),
  /** How long a receipt waits to be fetched by k6 before it is dropped. */
  RECEIPT_TTL_SEC: Type.Integer({ minimum: 1, default: 120 }),
  /** A one-line summary on stdout every so often while deliveries arrive; 0 turns it off. */
  REPORT_INTERVAL_SEC: Type.Integer({ minimum: 0, default: 10 }),
});
export type ReceiverConfig = Static<typeof ReceiverEnv>;

export const loadReceiverConfig = (env: NodeJS.ProcessEnv = process.env): ReceiverConfig =>
  loadConfig(ReceiverEnv, env);
