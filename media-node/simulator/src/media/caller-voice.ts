// What the caller can be made to say through the control API: a WAV fetched over HTTP(S) or a
// tone, as call audio (8 kHz mono L16).
import type { MediaResolver } from './audio-source.js';
import type { SaidSource } from './call-audio.js';
import { CALL_RATE, msToSamples } from './clock.js';
import { tone } from './pcm.js';
import { wavToCallAudio } from './wav.js';

export type Voice =
  { readonly ok: true; readonly pcm: Int16Array } | { readonly ok: false; readonly reason: string };

export async function voiceOf(source: SaidSource, media: MediaResolver): Promise<Voice> {
  if ('tone' in source) {
    return { ok: true, pcm: tone(source.tone.hz, msToSamples(source.tone.ms), CALL_RATE) };
  }
  const bytes = await media.fetchBytes(source.url);
  if (!bytes) return { ok: false, reason: `Could not fetch ${source.url}` };
  const pcm = wavToCallAudio(bytes);
  if (!pcm) return { ok: false, reason: `${source.url} is not a 16-bit PCM WAV file` };
  if (pcm.length === 0) return { ok: false, reason: `${source.url} holds no audio` };
  return { ok: true, pcm };
}
