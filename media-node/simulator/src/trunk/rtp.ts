// A trunk call's audio, as RTP carries it between two FreeSWITCHes: what a leg hears (what its
// switch writes toward the far end: a bridged call's voice, a stream's audio, a tone) goes out
// in 20 ms frames and becomes what the far leg says (reads), so a call bridged to a trunk leg is
// heard by the call bridged to the far leg. Silent frames are not sent (comfort noise would be);
// each frame carries its sequence number, which places it on the receiver's clock at a fixed
// delay from the first one received, whatever the jitter of the connection.
import type { CallAudio } from '../media/call-audio.js';
import { FRAME_MS, FRAME_SAMPLES, nowSample, slotOf } from '../media/clock.js';
import { fromL16, toL16 } from '../media/pcm.js';

/** How far behind now a frame is sent: what writes into the leg has written it by then. */
const SEND_LAG_SAMPLES = 2 * FRAME_SAMPLES;
/** The receiver's jitter buffer: the first frame is placed this far after its arrival. */
const JITTER_SAMPLES = 2 * FRAME_SAMPLES;

export interface RtpFrame {
  readonly seq: number;
  /** L16 little-endian, base64. */
  readonly pcm: string;
}

/** Sends what `audio` hears, frame by frame, from now until stopped. */
export class RtpSender {
  private readonly start = slotOf(nowSample());
  private next = this.start;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly audio: CallAudio,
    private readonly send: (frame: RtpFrame) => void,
  ) {
    this.timer = setInterval(() => this.tick(), FRAME_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    const due = slotOf(nowSample()) - SEND_LAG_SAMPLES;
    for (; this.next + FRAME_SAMPLES <= due; this.next += FRAME_SAMPLES) {
      const pcm = this.audio.hearing(this.next, FRAME_SAMPLES);
      if (pcm.every((s) => s === 0)) continue;
      const seq = (this.next - this.start) / FRAME_SAMPLES;
      this.send({ seq, pcm: toL16(pcm).toString('base64') });
    }
  }
}

/** Puts the frames from the far leg into what `audio` says, in sequence. */
export class RtpReceiver {
  /** The clock sample of sequence number 0, set by the first frame. */
  private base: number | undefined;

  constructor(private readonly audio: CallAudio) {}

  receive(frame: RtpFrame): void {
    this.base ??= slotOf(nowSample()) + JITTER_SAMPLES - frame.seq * FRAME_SAMPLES;
    this.audio.receive(
      this.base + frame.seq * FRAME_SAMPLES,
      fromL16(Buffer.from(frame.pcm, 'base64')),
    );
  }
}
