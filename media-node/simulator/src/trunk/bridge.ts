// uuid_bridge <uuid> <other_uuid> (mod_commands → switch_ivr_uuid_bridge): both channels leave
// what they run (park ends with CHANNEL_UNPARK and EXECUTE_COMPLETE), go through the bridge
// states, each fires CHANNEL_EXECUTE uuid_bridge (no Application-UUID) and the originator fires
// CHANNEL_BRIDGE. While bridged, DTMF a channel receives is sent on toward the other's far end,
// and queued applications still run on a channel (the bridge parses them, as it does in
// FreeSWITCH). When one side goes, the originator fires CHANNEL_UNBRIDGE and the survivor parks
// if its `park_after_bridge` is true (CHANNEL_PARK, no execute events); otherwise the originator
// goes back to its dialplan, which has nothing left (hangup NORMAL_CLEARING), and the other side
// hangs up with the cause of the one that went.
import type { Channel } from '../core/channel.js';
import type { AppHandle, SimContext } from '../core/context.js';
import { MESSAGE_LATENCY_MS, sleep } from '../core/timing.js';
import type { ApiHandler } from '../api/types.js';

const INVALID = '-ERR Invalid uuid\n';

export const uuidBridge: ApiHandler = (ctx, arg) => {
  const [first = '', second = ''] = arg.trim().split(/\s+/);
  if (!first || !second) return '-USAGE: <uuid> <other_uuid>\n';
  let a = ctx.channels.get(first);
  let b = ctx.channels.get(second);
  if (!a?.alive || !b?.alive || a === b) return INVALID;
  // The originator must have media; FreeSWITCH swaps the two when only the other one has.
  if (!mediaUp(a)) {
    if (!mediaUp(b)) return INVALID;
    [a, b] = [b, a];
  }
  void new Bridge(ctx, a, b).start();
  return `+OK ${second}\n`;
};

function mediaUp(ch: Channel): boolean {
  return ch.answered || ch.answerState === 'early';
}

class Bridge {
  private over = false;
  private readonly parked = new Set<Channel>();

  constructor(
    private readonly ctx: SimContext,
    /** The originator (the first uuid, unless swapped). */
    private readonly a: Channel,
    private readonly b: Channel,
  ) {}

  async start(): Promise<void> {
    const { a, b } = this;
    // The state change reaches both channel threads on their next frame.
    await sleep(MESSAGE_LATENCY_MS);
    await Promise.all([a.executor.takeOver(), b.executor.takeOver()]);
    if (!a.alive || !b.alive) return this.end(a.alive ? b : a);
    for (const ch of [a, b]) {
      ch.setState('CS_HIBERNATE');
      ch.setState('CS_RESET');
    }
    a.setState('CS_SOFT_EXECUTE');
    for (const [self, other] of [
      [a, b],
      [b, a],
    ] as const) {
      self.vars.set('bridge_to', other.uuid);
      self.vars.set('bridge_uuid', other.uuid);
      self.vars.set('signal_bond', other.uuid);
      self.vars.set('bridge_channel', other.name);
      self.fire('CHANNEL_EXECUTE', {
        tail: [
          ['Application', 'uuid_bridge'],
          ['Application-Data', other.uuid],
        ],
      });
    }
    b.setState('CS_EXCHANGE_MEDIA');
    // The bridge answers the originator once the other side is answered.
    if (b.answered) a.answer();
    a.fire('CHANNEL_BRIDGE', { pre: this.ids() });
    void a.executor.hold('uuid_bridge', b.uuid, () => this.frame(a, b));
    void b.executor.hold('uuid_bridge', a.uuid, () => this.frame(b, a));
  }

  /** The bridge as a state on one channel's stack; it ends when that channel leaves it. */
  private frame(self: Channel, other: Channel): AppHandle {
    let finish!: (response: string) => void;
    const done = new Promise<string>((resolve) => (finish = resolve));
    return {
      done,
      hangup: () => {
        if (this.parked.has(self)) self.fire('CHANNEL_UNPARK');
        else this.end(self);
        finish('_none_');
      },
      dtmf: (digit, samples) => {
        if (!this.over) other.sendDtmf?.(digit, samples);
      },
      label: () => (this.parked.has(self) ? 'park' : 'uuid_bridge'),
    };
  }

  /** `gone` left the bridge (hung up, transferred): the other side carries on without it. */
  private end(gone: Channel): void {
    if (this.over) return;
    this.over = true;
    const { a, b } = this;
    for (const ch of [a, b]) {
      const peer = ch.vars.get('bridge_to');
      ch.vars.delete('bridge_to');
      if (peer) ch.vars.set('last_bridge_to', peer);
    }
    a.fire('CHANNEL_UNBRIDGE', { pre: this.ids() });
    const survivor = gone === a ? b : a;
    if (!survivor.alive) return;
    if (survivor.vars.get('park_after_bridge') === 'true') {
      this.parked.add(survivor);
      survivor.setState('CS_PARK');
      survivor.fire('CHANNEL_PARK');
      return;
    }
    const cause = gone.hangupCause ?? 'NORMAL_CLEARING';
    // Queued after the current teardown step, as the survivor's own thread notices.
    setImmediate(() => survivor.hangup(survivor === a ? 'NORMAL_CLEARING' : cause));
    this.ctx.log.debug({ uuid: survivor.uuid }, 'bridge ended; hanging up the survivor');
  }

  private ids(): Array<[string, string]> {
    return [
      ['Bridge-A-Unique-ID', this.a.uuid],
      ['Bridge-B-Unique-ID', this.b.uuid],
    ];
  }
}
