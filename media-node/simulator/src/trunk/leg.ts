// One end of a trunk call: keeps a simulated channel and the far simulator's channel in step.
// A local hangup reaches the far side when this channel reaches CS_HANGUP, one media frame
// after its CHANNEL_HANGUP (where mod_sofia sends the BYE, CANCEL or refusal), with the same
// cause; the far side then hangs up as after a uuid_kill (trace i: USER_BUSY on one leg is
// USER_BUSY on the other). DTMF sent toward the far end arrives there as RFC 2833, and from
// early media or the answer on, what the channel hears goes to the far one as RTP (rtp.ts).
import type { Channel } from '../core/channel.js';
import { TEARDOWN_DELAY_MS } from '../core/timing.js';
import { statusOf, type TrunkMessage, type TrunkWire } from './protocol.js';
import { RtpReceiver, RtpSender } from './rtp.js';

/** The cause of a channel whose trunk connection broke without a BYE (RTP stopped). */
const LOST_CAUSE = 'MEDIA_TIMEOUT';

export class TrunkLeg {
  /** A BYE, CANCEL or refusal was sent or received: the dialog is over. */
  private over = false;
  private pending: TrunkMessage | undefined;
  private timer: NodeJS.Timeout | undefined;
  private rtp: RtpSender | undefined;
  private readonly received: RtpReceiver;

  constructor(
    readonly channel: Channel,
    /** caller: our channel placed the call (UAC); callee: it received it (UAS). */
    readonly side: 'caller' | 'callee',
    private readonly wire: TrunkWire,
    private readonly onOver: (leg: TrunkLeg) => void,
  ) {
    channel.sendDtmf = (digit, samples) => this.wire.send({ m: 'DTMF', digit, samples });
    this.received = new RtpReceiver(channel.audio);
    channel.onHangup((cause) => {
      this.rtp?.stop();
      this.localHangup(cause);
    });
    channel.onEarlyMedia(() => this.sendMedia());
    channel.onAnswer(() => this.sendMedia());
    if (side === 'callee') this.announceProgress();
  }

  receive(message: TrunkMessage): void {
    const ch = this.channel;
    switch (message.m) {
      case 'RESPONSE':
        if (this.side !== 'caller') return;
        if (message.code === 180) ch.ringReady();
        else if (message.code === 183) ch.preAnswer();
        else if (message.code === 200) ch.answer();
        else if (message.code >= 300) this.remoteHangup(message.cause ?? 'NORMAL_CLEARING');
        return;
      case 'CANCEL':
        // The caller gave up before an answer: the callee's leg ends as cancelled.
        this.remoteHangup('ORIGINATOR_CANCEL');
        return;
      case 'BYE':
        this.remoteHangup(message.cause);
        return;
      case 'DTMF':
        ch.dtmf(message.digit, message.samples, 'RTP');
        return;
      case 'RTP':
        this.received.receive(message);
        return;
      case 'INVITE':
        return;
    }
  }

  /** The connection closed. Without a BYE first, the far side is gone: RTP stops. */
  closed(): void {
    if (this.pending) return this.flush();
    if (this.over) return;
    this.over = true;
    this.onOver(this);
    this.channel.kill(LOST_CAUSE);
  }

  /** Sends at once what is waiting for CS_HANGUP (the simulator is shutting down). */
  flush(): void {
    clearTimeout(this.timer);
    const message = this.pending;
    this.pending = undefined;
    if (!message) return;
    this.wire.end(message);
    this.onOver(this);
  }

  private remoteHangup(cause: string): void {
    if (this.over) return;
    this.over = true;
    this.wire.end();
    this.onOver(this);
    this.channel.kill(cause);
  }

  private localHangup(cause: string): void {
    if (this.over) return;
    this.over = true;
    const ch = this.channel;
    if (ch.answered) this.pending = { m: 'BYE', cause };
    else if (this.side === 'caller') this.pending = { m: 'CANCEL', cause };
    else this.pending = { m: 'RESPONSE', code: statusOf(cause), cause };
    this.timer = setTimeout(() => this.flush(), TEARDOWN_DELAY_MS);
  }

  /** Media flows from early media or the answer on (whichever comes first). */
  private sendMedia(): void {
    if (this.rtp || !this.channel.alive) return;
    this.rtp = new RtpSender(this.channel.audio, (frame) => this.wire.send({ m: 'RTP', ...frame }));
  }

  /** The callee's ringing, early media and answer go back as 180, 183 and 200. */
  private announceProgress(): void {
    const ch = this.channel;
    const ringReady = ch.ringReady.bind(ch);
    ch.ringReady = () => {
      const before = ch.times.progress;
      ringReady();
      if (!before && ch.times.progress) this.wire.send({ m: 'RESPONSE', code: 180 });
    };
    const preAnswer = ch.preAnswer.bind(ch);
    ch.preAnswer = () => {
      const before = ch.times.progressMedia;
      preAnswer();
      if (!before && ch.times.progressMedia) this.wire.send({ m: 'RESPONSE', code: 183 });
    };
    ch.onAnswer(() => this.wire.send({ m: 'RESPONSE', code: 200 }));
  }
}
