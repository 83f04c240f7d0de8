import type { NodeRegistry } from '@voicegw/shared';
import type { NodeContext } from '../context.js';
import { freeswitchState } from '../esl/dial-target.js';

/**
 * Announces the node (capacity, load, draining) every HEARTBEAT_INTERVAL_MS with a TTL of
 * HEARTBEAT_TTL_MS, and records when it was last seen, from which the orphan sweeper counts once
 * the heartbeat is gone. It announces its FreeSWITCH state (the api's /admin/health shows a node
 * without a usable one as degraded); without FreeSWITCH, or with a dial target that cannot work,
 * the node takes no new dials (outbound capacity 0) but keeps its sessions alive.
 */
export class Heartbeat {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /**
   * After a Redis outage the heartbeat may have expired (or a restarted Redis lost it): beat as
   * soon as the connection is ready again, not an interval later, so no sweeper takes this node
   * for dead (absence.ts gives it a full TTL to do so).
   */
  private readonly onReady = (): void => void this.beat();

  constructor(
    private readonly node: NodeContext,
    private readonly registry: NodeRegistry,
  ) {}

  async start(): Promise<void> {
    await this.beat();
    this.node.redis.on('ready', this.onReady);
    this.timer = setInterval(() => void this.beat(), this.node.config.HEARTBEAT_INTERVAL_MS);
  }

  /** Beats now (state changes such as draining are announced at once). */
  async beat(): Promise<void> {
    if (this.stopped) return;
    const { node } = this;
    const { config } = node;
    const active = node.sessions.size;
    const freeswitch = freeswitchState(node.esl.connected, node.dialTarget);
    const full = node.draining || freeswitch !== 'ok';
    try {
      await Promise.all([
        this.registry.heartbeat(
          node.prefix,
          {
            name: config.NODE_NAME,
            capacity: config.CAPACITY,
            active_sessions: active,
            outbound_capacity: full ? 0 : Math.max(0, config.CAPACITY - active),
            draining: node.draining,
            ...(config.FS_SIP_ADDRESS ? { sip_address: config.FS_SIP_ADDRESS } : {}),
            freeswitch,
          },
          config.HEARTBEAT_TTL_MS,
        ),
        node.redis.zadd(node.keys.nodesSeen(), Date.now(), node.prefix),
      ]);
    } catch (err) {
      node.log.warn({ err }, 'heartbeat failed');
    }
  }

  /** Stops beating; `retire` also removes the heartbeat so the api stops placing work here. */
  async stop(retire: boolean): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.node.redis.off('ready', this.onReady);
    if (retire) await this.registry.retire(this.node.prefix);
  }
}
