// A call's two audio tracks: what the caller says (FreeSWITCH's read direction: a mono
// mod_audio_stream, the left channel of a stereo one) and what the call hears (the write
// direction: the right channel); a recording takes both. Both sit on the shared clock, so a
// bridge routes one call's `said` into another's `heard` sample for sample: what a call hears is
// rendered when read, its own writes mixed with what each call it is bridged to says meanwhile.
import { wavHeader } from '@voicegw/shared';
import { CALL_RATE, msToSamples, nowSample, samplesToMs, slotOf } from './clock.js';
import { mix, mixInto, toL16 } from './pcm.js';
import { Track } from './track.js';

/** How much audio is kept: the last 10 minutes, and at most 10 minutes of speech queued ahead. */
export const KEEP_MS = 10 * 60_000;
const KEEP_SAMPLES = msToSamples(KEEP_MS);
/** How long a call's audio stays readable after it ends (for a test to fetch heard.wav). */
export const KEEP_AFTER_HANGUP_MS = 60_000;

/** What a say came from, as the control API was given it. */
export type SaidSource =
  { readonly url: string } | { readonly tone: { readonly hz: number; readonly ms: number } };

/** One thing the caller said: when it began, in ms since the call began, and for how long. */
export type Said = { readonly at_ms: number; readonly ms: number } & SaidSource;

/** Another call whose voice this one hears from clock sample `from` until `to` (a bridge). */
interface Link {
  readonly source: CallAudio;
  readonly from: number;
  to: number;
}

export class CallAudio {
  /** The clock sample the call began at: its channel's creation, on a frame boundary. */
  readonly began = slotOf(nowSample());
  readonly beganAt = new Date();
  private readonly said = new Track(KEEP_SAMPLES);
  private readonly heard = new Track(KEEP_SAMPLES);
  private readonly saids: Said[] = [];
  private links: Link[] = [];
  private saidUntil = 0;
  private endedAt: number | undefined;

  get ended(): boolean {
    return this.endedAt !== undefined;
  }

  /** Where the audio ends: now, or the hangup. */
  get end(): number {
    return this.endedAt ?? nowSample();
  }

  /**
   * Queues speech after what the caller is already saying; undefined when it would reach more
   * than KEEP_MS ahead (the queue is bounded like the tracks).
   */
  say(pcm: Int16Array, source: SaidSource): Said | undefined {
    const now = nowSample();
    const at = Math.max(now, this.saidUntil);
    if (this.ended || at + pcm.length > now + KEEP_SAMPLES) return undefined;
    this.said.mix(at, pcm);
    this.saidUntil = at + pcm.length;
    const said: Said = {
      at_ms: samplesToMs(at - this.began),
      ms: samplesToMs(pcm.length),
      ...source,
    };
    this.saids.push(said);
    const horizon = samplesToMs(now - this.began - KEEP_SAMPLES);
    while (this.saids.length > 0 && this.saids[0]!.at_ms + this.saids[0]!.ms < horizon) {
      this.saids.shift();
    }
    return said;
  }

  /** A writer (mod_audio_stream's write thread, a tone) puts a frame into what the call hears. */
  hear(at: number, pcm: Int16Array): void {
    if (!this.ended) this.heard.mix(at, pcm);
  }

  /** Audio from the far end that is not the simulated caller's voice: RTP over the SIP trunk. */
  receive(at: number, pcm: Int16Array): void {
    if (!this.ended) this.said.mix(at, pcm);
  }

  /**
   * From now on the call also hears what `source` says, as a bridge carries it; the returned
   * function ends that (the bridge is over).
   */
  listenTo(source: CallAudio): () => void {
    const now = nowSample();
    this.links = this.links.filter((l) => l.to > now - KEEP_SAMPLES);
    const link: Link = { source, from: now, to: Infinity };
    this.links.push(link);
    return () => {
      link.to = Math.min(link.to, nowSample());
    };
  }

  /** What the caller says over `count` samples from clock sample `from`. */
  saying(from: number, count: number): Int16Array {
    return this.said.read(from, count);
  }

  /** What the call hears: its own writes and the voices of the calls it was bridged to. */
  hearing(from: number, count: number): Int16Array {
    const out = this.heard.read(from, count);
    const until = Math.min(from + count, this.endedAt ?? Infinity);
    for (const link of this.links) {
      const start = Math.max(from, link.from);
      const stop = Math.min(until, link.to);
      if (stop > start) mixInto(out, link.source.saying(start, stop - start), start - from);
    }
    return out;
  }

  /** Both directions mixed, as FreeSWITCH records a call. */
  both(from: number, count: number): Int16Array {
    return mix(this.said.read(from, count), this.hearing(from, count));
  }

  timeline(): readonly Said[] {
    return this.saids;
  }

  /** A WAV (8 kHz mono L16) of what the call heard; `fromMs`: its start since the call began. */
  heardWav(): { readonly wav: Buffer; readonly fromMs: number } {
    const to = this.end;
    const from = Math.max(this.began, to - KEEP_SAMPLES);
    const data = toL16(this.hearing(from, to - from));
    return {
      wav: Buffer.concat([wavHeader(data.length, CALL_RATE), data]),
      fromMs: samplesToMs(from - this.began),
    };
  }

  close(): void {
    this.endedAt ??= nowSample();
  }
}

/** Every call's audio by uuid, from its channel's creation to KEEP_AFTER_HANGUP_MS past its end. */
export class CallAudioRegistry {
  private readonly calls = new Map<string, CallAudio>();

  open(uuid: string): CallAudio {
    const audio = new CallAudio();
    this.calls.set(uuid, audio);
    return audio;
  }

  close(uuid: string): void {
    const audio = this.calls.get(uuid);
    if (!audio) return;
    audio.close();
    const timer = setTimeout(() => {
      if (this.calls.get(uuid) === audio) this.calls.delete(uuid);
    }, KEEP_AFTER_HANGUP_MS);
    timer.unref();
  }

  get(uuid: string): CallAudio | undefined {
    return this.calls.get(uuid);
  }
}
