// What mod_audio_stream makes of a text frame from its server (processMessage): a raw
// `streamAudio` becomes call audio for the write buffer, another audioDataType a temp file
// announced with `::play`, and anything else, a malformed streamAudio included, a `::json` event.
import { CALL_RATE } from './clock.js';
import { foldChannels, fromL16, resample } from './pcm.js';
import { FILE_TYPES, RAW_RATES } from './stream-protocol.js';

export type StreamMessage =
  /** 8 kHz mono samples, as the write thread will write them. */
  | { readonly kind: 'raw'; readonly pcm: Int16Array }
  /** `data` is the message's data object without its audioData. */
  | { readonly kind: 'file'; readonly ext: string; readonly bytes: Buffer; readonly data: object }
  | { readonly kind: 'json' };

/** The stream's start rate and channel count (2 for stereo). */
export interface StreamFormat {
  readonly rate: number;
  readonly channels: 1 | 2;
}

const JSON_EVENT: StreamMessage = { kind: 'json' };
/** The module's base64 decoder takes both alphabets and throws on anything else. */
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export function parseStreamMessage(text: string, format: StreamFormat): StreamMessage {
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch {
    return JSON_EVENT;
  }
  if (!isObject(root) || root.type !== 'streamAudio' || !isObject(root.data)) return JSON_EVENT;
  const { audioData, ...data } = root.data;
  if (typeof audioData !== 'string' || !BASE64.test(audioData)) return JSON_EVENT;
  const type = typeof data.audioDataType === 'string' ? data.audioDataType : '';
  const bytes = Buffer.from(audioData, 'base64');
  if (type === 'raw') {
    // cJSON's valueint: a number truncated, anything else 0.
    const declared = typeof data.sampleRate === 'number' ? Math.trunc(data.sampleRate) : 0;
    if (!RAW_RATES.has(declared)) return JSON_EVENT;
    return { kind: 'raw', pcm: toCallAudio(bytes, declared, format) };
  }
  const ext = FILE_TYPES[type];
  return ext ? { kind: 'file', ext, bytes, data } : JSON_EVENT;
}

/**
 * injectRawAudio: whole sample frames of the stream's channels, resampled from the start rate to
 * the call's only when a resampler exists (start rate ≠ 8000) and the message does not say 8000
 * (otherwise copied as is: the wrong rate plays at the wrong speed); a stereo frame is then
 * folded into the mono call by FreeSWITCH's write path (switch_mux_channels: L + R, clipped).
 */
function toCallAudio(bytes: Buffer, declared: number, format: StreamFormat): Int16Array {
  const frameBytes = 2 * format.channels;
  const whole = bytes.subarray(0, bytes.length - (bytes.length % frameBytes));
  const mono = foldChannels(fromL16(whole), format.channels, 'sum');
  const resampled = format.rate !== CALL_RATE && declared !== CALL_RATE;
  return resampled ? resample(mono, format.rate, CALL_RATE) : mono;
}
