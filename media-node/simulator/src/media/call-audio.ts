// A call's two audio tracks: what the caller says (FreeSWITCH's read direction: a mono
// mod_audio_stream, the left channel of a stereo one) and what the call hears (the write
// direction: the right channel); a recording takes both. Both sit on the shared clock, so a
// bridge or a conference can later route one call's `said` into another's `heard` sample for
// sample (or render `heard` as its own writes mixed with the peer's `said`) without changing
// either side.
import { wavHeader } from '@voicegw/shared';
import { CALL_RATE, msToSamples, nowSample, samplesToMs, slotOf } from './clock.js';
import { mix, toL16 } from './pcm.js';
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

export class CallAudio {
  /** The clock sample the call began at: its channel's creation, on a frame boundary. */
  readonly began = slotOf(nowSample());
  readonly beganAt = new Date();
  private readonly said = new Track(KEEP_SAMPLES);
  private readonly heard = new Track(KEEP_SAMPLES);
  private readonly saids: Said[] = [];
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

  /** A writer (mod_audio_stream's write thread) puts a frame into what the call hears. */
  hear(at: number, pcm: Int16Array): void {
    if (!this.ended) this.heard.mix(at, pcm);
  }

  /** What the caller says over `count` samples from clock sample `from`. */
  saying(from: number, count: number): Int16Array {
    return this.said.read(from, count);
  }

  hearing(from: number, count: number): Int16Array {
    return this.heard.read(from, count);
  }

  /** Both directions mixed, as FreeSWITCH records a call. */
  both(from: number, count: number): Int16Array {
    return mix(this.said.read(from, count), this.heard.read(from, count));
  }

  timeline(): readonly Said[] {
    return this.saids;
  }

  /** A WAV (8 kHz mono L16) of what the call heard; `fromMs`: its start since the call began. */
  heardWav(): { readonly wav: Buffer; readonly fromMs: number } {
    const to = this.end;
    const from = Math.max(this.began, to - KEEP_SAMPLES);
    const data = toL16(this.heard.read(from, to - from));
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
