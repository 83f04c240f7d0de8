// What mod_audio_stream sends of a call: one 20 ms frame of L16 per slot of the clock, at the
// stream's rate, from the media bug it asked for. mono: the read direction only (what the caller
// says); mixed: read and write in one channel; stereo: interleaved, left the read and right the
// write direction (switch_core_media_bug_read puts the read frame first).
import type { CallAudio } from './call-audio.js';
import { CALL_RATE, FRAME_SAMPLES } from './clock.js';
import { interleave, mix, resample, toL16 } from './pcm.js';

export type MixType = 'mono' | 'mixed' | 'stereo';

export const MIX_TYPES: ReadonlySet<string> = new Set<MixType>(['mono', 'mixed', 'stereo']);

export const channelsOf = (type: MixType): 1 | 2 => (type === 'stereo' ? 2 : 1);

/** One frame of the slot starting at clock sample `slot`. */
export function captureFrame(audio: CallAudio, slot: number, type: MixType, rate: number): Buffer {
  const said = atRate(audio.saying(slot, FRAME_SAMPLES + 1), rate);
  if (type === 'mono') return toL16(said);
  const heard = atRate(audio.hearing(slot, FRAME_SAMPLES + 1), rate);
  return toL16(type === 'mixed' ? mix(said, heard) : interleave(said, heard));
}

/** A frame at the stream's rate; the one sample past the frame lets the resampler interpolate. */
function atRate(samples: Int16Array, rate: number): Int16Array {
  return resample(samples, CALL_RATE, rate).subarray(0, (FRAME_SAMPLES * rate) / CALL_RATE);
}
