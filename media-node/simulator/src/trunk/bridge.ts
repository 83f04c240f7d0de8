// uuid_bridge <uuid> <other_uuid> (mod_commands → switch_ivr_uuid_bridge), as FreeSWITCH 1.10.12
// does it in the bridge traces (test/fixtures/bridge-traces/). At once each channel's caller
// profile names the other (Other-Type, Other-Leg-*) and `signal_bond` the other's uuid; a frame
// later both leave what they run (park ends with CHANNEL_UNPARK and EXECUTE_COMPLETE, a playback
// with PLAYBACK ERROR), each fires CHANNEL_EXECUTE uuid_bridge (no Application-UUID; from it on
// `bridge_uuid` and `bridge_channel` name the other) and the originator fires CHANNEL_BRIDGE
// (Bridge-A/B-Unique-ID), after which `bridge_to` and `last_bridge_to` name the other. An
// originatee with no media (an inbound call parked unanswered) is never answered: both hang up,
// it DESTINATION_OUT_OF_ORDER and the originator ORIGINATOR_CANCEL. While bridged, each hears
// what the other says, DTMF a channel receives is sent on toward the other's far end, and queued
// applications still run on a channel (the bridge parses them). When one side goes (hangs up, or
// leaves by uuid_park or uuid_transfer), `bridge_to` goes, the originator fires CHANNEL_UNBRIDGE
// and the survivor parks if its `park_after_bridge` is true (CHANNEL_PARK, no execute events);
// otherwise it hangs up NORMAL_CLEARING, whatever the cause of the one that went (its dialplan
// has nothing left).
import type { Channel } from '../core/channel.js';
import type { AppHandle, SimContext } from '../core/context.js';
import { MESSAGE_LATENCY_MS, sleep } from '../core/timing.js';
import { park } from '../apps/basic.js';
import type { ApiHandler } from '../api/types.js';

const INVALID = '-ERR Invalid uuid\n';
/** How long the originator waits for an originatee that cannot answer (trace 9: ~40 ms). */
const NO_ANSWER_WAIT_MS = 2 * MESSAGE_LATENCY_MS;

export const uuidBridge: ApiHandler = (ctx, arg) => {
  const [first = '', second = ''] = arg.trim().split(/\s+/);
  if (!first || !second) return '-USAGE: <uuid> <other_uuid>\n';
  let a = ctx.channels.get(first);
  let b = ctx.channels.get(second);
  if (!a?.alive || !b?.alive || a === b) return INVALID;
  // The originator must have media; FreeSWITCH swaps the two when only the other one has.
  if (!a.mediaReady) {
    if (!b.mediaReady) return INVALID;
    [a, b] = [b, a];
  }
  a.otherLeg = { type: 'originatee', leg: b };
  b.otherLeg = { type: 'originator', leg: a };
  a.vars.set('signal_bond', b.uuid);
  b.vars.set('signal_bond', a.uuid);
  void new Bridge(ctx, a, b).start();
  return `+OK ${second}\n`;
};

/**
 * uuid_park <uuid> (switch_ivr_park_session): the channel leaves what it runs (a bridge, which
 * then ends as above, the caller profile and signal_bond kept) and parks: CHANNEL_PARK, no
 * execute events.
 */
export const uuidPark: ApiHandler = async (ctx, arg) => {
  const uuid = arg.trim();
  if (!uuid) return '-USAGE: <uuid>\n';
  const ch = ctx.channels.get(uuid);
  if (!ch?.alive) return '-ERR No Such Channel!\n';
  void parkNow(ctx, ch);
  return '+OK\n';
};

/** The park state a channel enters without the park application (CS_PARK). */
async function parkNow(ctx: SimContext, ch: Channel): Promise<void> {
  await ch.executor.takeOver();
  if (!ch.alive) return;
  ch.setState('CS_PARK');
  await ch.executor.hold('park', '', () => park(ch, '', ctx));
}

/**
 * What uuid_transfer does to a channel's bridge before it runs the new dialplan: a new caller
 * profile (no Other-Leg any more) and no signal_bond on either side; the bridge then ends as
 * any other, the survivor handled as above unless it is being transferred too.
 */
export function leaveBridgeForTransfer(ch: Channel, ctx: SimContext): void {
  const other = ctx.channels.get(ch.vars.get('signal_bond') ?? '');
  ch.otherLeg = undefined;
  ch.vars.delete('signal_bond');
  if (other?.vars.get('signal_bond') === ch.uuid) other.vars.delete('signal_bond');
}

/** The channel's bridged peer (uuid_transfer -bleg / -both). */
export function bridgedPeer(ch: Channel, ctx: SimContext): Channel | undefined {
  const peer = ctx.channels.get(ch.vars.get('bridge_to') ?? '');
  return peer?.alive ? peer : undefined;
}

class Bridge {
  private over = false;
  /** Each side stops hearing the other. */
  private unlink: Array<() => void> = [];
  private readonly finish = new Map<Channel, (response: string) => void>();

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
      ch.setState('CS_SOFT_EXECUTE');
    }
    if (!b.mediaReady) {
      // switch_ivr_wait_for_answer gives up on an originatee nobody will answer.
      await sleep(NO_ANSWER_WAIT_MS);
      b.hangup('DESTINATION_OUT_OF_ORDER');
      a.hangup('ORIGINATOR_CANCEL');
      return;
    }
    for (const [self, other] of [
      [a, b],
      [b, a],
    ] as const) {
      self.vars.set('bridge_uuid', other.uuid);
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
    for (const [self, other] of [
      [a, b],
      [b, a],
    ] as const) {
      self.vars.set('bridge_to', other.uuid);
      self.vars.set('last_bridge_to', other.uuid);
    }
    this.unlink = [a.audio.listenTo(b.audio), b.audio.listenTo(a.audio)];
    void a.executor.hold('uuid_bridge', b.uuid, () => this.frame(a, b));
    void b.executor.hold('uuid_bridge', a.uuid, () => this.frame(b, a));
  }

  /** The bridge as a state on one channel's stack; it ends when either channel leaves it. */
  private frame(self: Channel, other: Channel): AppHandle {
    let finish!: (response: string) => void;
    const done = new Promise<string>((resolve) => (finish = resolve));
    this.finish.set(self, finish);
    return {
      done,
      hangup: () => this.end(self),
      dtmf: (digit, samples) => {
        if (!this.over) other.sendDtmf?.(digit, samples);
      },
    };
  }

  /** `gone` left the bridge (hung up, transferred, parked): the other carries on without it. */
  private end(gone: Channel): void {
    if (this.over) return;
    this.over = true;
    const { a, b } = this;
    for (const unlink of this.unlink) unlink();
    for (const ch of [a, b]) ch.vars.delete('bridge_to');
    a.fire('CHANNEL_UNBRIDGE', { pre: this.ids() });
    for (const finish of this.finish.values()) finish('_none_');
    const survivor = gone === a ? b : a;
    if (!survivor.alive || survivor.transferring) return;
    if (survivor.vars.get('park_after_bridge') === 'true') {
      survivor.setState('CS_PARK');
      void survivor.executor.hold('park', '', () => park(survivor, '', this.ctx));
      return;
    }
    // Queued after the current teardown step, as the survivor's own thread notices.
    setImmediate(() => survivor.hangup('NORMAL_CLEARING'));
    this.ctx.log.debug({ uuid: survivor.uuid }, 'bridge ended; hanging up the survivor');
  }

  private ids(): Array<[string, string]> {
    return [
      ['Bridge-A-Unique-ID', this.a.uuid],
      ['Bridge-B-Unique-ID', this.b.uuid],
    ];
  }
}
