import { Type } from 'typebox';

const ms = (fallback: number, minimum: number, description: string) =>
  Type.Integer({ minimum, default: fallback, description });

/**
 * Environment of the dead-node sweep, read by the media nodes and the dispatcher (both sweep):
 * give every process of a gateway the same values.
 */
export const SweepEnv = {
  HEARTBEAT_TTL_MS: ms(
    15_000,
    300,
    'Lifetime of a heartbeat; after it the api treats the node as gone (404 for its sessions), and a sweeper that sees it missing this long takes the node for dead.',
  ),
  SESSION_GRACE_SEC: Type.Integer({
    minimum: 0,
    default: 300,
    description: 'How long an ended session stays readable (dial status `ended`) before removal.',
  }),
  ORPHAN_TIMEOUT_MS: ms(
    120_000,
    0,
    'A session whose node died (or whose channel vanished) gets its synthetic call.hangup after this.',
  ),
  SWEEP_INTERVAL_MS: ms(5000, 50, 'How often the cluster-wide orphan sweeper runs.'),
} as const;
