/**
 * Environment of the loadtest receiver (loadtest/README.md lists the same variables). A bad
 * value stops it with a message naming the variable. Standalone on purpose: the receiver runs
 * next to k6, possibly far from the gateway, and needs nothing of the gateway's packages.
 */
export interface ReceiverConfig {
  readonly RECEIVER_HOST: string;
  readonly RECEIVER_PORT: number;
  /** How long a receipt waits to be fetched by k6 before it is dropped. */
  readonly RECEIPT_TTL_SEC: number;
  /** A one-line summary on stdout every so often while deliveries arrive; 0 turns it off. */
  readonly REPORT_INTERVAL_SEC: number;
}

function integer(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}: ${raw}`);
  }
  return value;
}

export function loadReceiverConfig(env: NodeJS.ProcessEnv = process.env): ReceiverConfig {
  return {
    RECEIVER_HOST: env.RECEIVER_HOST || '127.0.0.1',
    RECEIVER_PORT: integer(env, 'RECEIVER_PORT', 8099, 0, 65_535),
    RECEIPT_TTL_SEC: integer(env, 'RECEIPT_TTL_SEC', 120, 1, 86_400),
    REPORT_INTERVAL_SEC: integer(env, 'REPORT_INTERVAL_SEC', 10, 0, 86_400),
  };
}
