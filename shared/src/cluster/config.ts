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
    "Lifetime of a media node's heartbeat: after it the api answers 404 for the node's " +
      'sessions and places nothing on it, and a sweeper that saw it missing this long takes the ' +
      'node for dead.',
  ),
  SESSION_GRACE_SEC: Type.Integer({
    minimum: 0,
    default: 300,
    description: 'How long an ended session hash stays readable (dial status `ended`).',
  }),
  ORPHAN_TIMEOUT_MS: ms(
    120_000,
    0,
    "A dead node's sessions get their synthetic `call.hangup` this long after its last beat " +
      '(and sessions whose channel a resync found gone, this long after that).',
  ),
  SWEEP_INTERVAL_MS: ms(
    5000,
    50,
    'How often each process observes the heartbeats and, holding the cluster-wide lock, one ' +
      'of them sweeps.',
  ),
} as const;
