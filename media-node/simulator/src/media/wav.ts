// Just enough RIFF/WAVE to read a file's duration and samples, and to write the test tones.
import { readWavLayout, wavDataBytes, wavHeader } from '@voicegw/shared';
import { CALL_RATE } from './clock.js';
import { foldChannels, fromL16, resample } from './pcm.js';

export interface WavInfo {
  readonly sampleRate: number;
  readonly channels: number;
  readonly bitsPerSample: number;
  readonly durationMs: number;
}

/** Reads the fmt and data chunks; `undefined` when the bytes are not a WAV file. */
export function parseWav(buf: Buffer): WavInfo | undefined {
  if (buf.length < 12 || buf.toString('ascii', 0, 4) !== 'RIFF') return undefined;
  if (buf.toString('ascii', 8, 12) !== 'WAVE') return undefined;
  let offset = 12;
  let byteRate = 0;
  let sampleRate = 0;
  let channels = 0;
  let bits = 0;
  while (offset + 8 <= buf.length) {
    const id = buf.toString('ascii', offset, offset + 4);
    const size = buf.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ' && body + 16 <= buf.length) {
      channels = buf.readUInt16LE(body + 2);
      sampleRate = buf.readUInt32LE(body + 4);
      byteRate = buf.readUInt32LE(body + 8);
      bits = buf.readUInt16LE(body + 14);
    } else if (id === 'data') {
      if (!byteRate) return undefined;
      // Streaming writers leave the size at 0 or 0xFFFFFFFF: then the data runs to the end.
      const dataBytes = size === 0 || size === 0xffffffff ? buf.length - body : size;
      const durationMs = Math.round((dataBytes / byteRate) * 1000);
      return { sampleRate, channels, bitsPerSample: bits, durationMs };
    }
    offset = body + size + (size % 2);
  }
  return undefined;
}

/** A mono 16-bit PCM WAV of a sine tone, used by tests and for generated audio. */
export function makeToneWav(durationMs: number, sampleRate = 8000, freq = 440): Buffer {
  const samples = Math.round((durationMs / 1000) * sampleRate);
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) {
    data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * freq * i) / sampleRate) * 8000), i * 2);
  }
  return Buffer.concat([wavHeader(data.length, sampleRate, 1), data]);
}

/**
 * A 16-bit PCM WAV as call audio (8 kHz mono): other rates resampled, channels averaged;
 * undefined for anything else.
 */
export function wavToCallAudio(buf: Buffer): Int16Array | undefined {
  const layout = readWavLayout(buf);
  if (!layout || layout.sampleRate <= 0) return undefined;
  const data = buf.subarray(
    layout.dataOffset,
    layout.dataOffset + wavDataBytes(layout, buf.length),
  );
  const mono = foldChannels(fromL16(data), layout.channels, 'average');
  return resample(mono, layout.sampleRate, CALL_RATE);
}
