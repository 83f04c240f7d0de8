// The canonical 44-byte header of a PCM WAV file: what the recording receiver writes and what the
// api patches when it serves a recording still being written.

export const WAV_HEADER_BYTES = 44;
const MAX_CHUNK = 0xffff_ffff;

/** A RIFF/WAVE header of 16-bit PCM with `dataBytes` of samples following it. */
export function wavHeader(dataBytes: number, sampleRate: number, channels = 1): Buffer {
  const header = Buffer.alloc(WAV_HEADER_BYTES);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(Math.min(MAX_CHUNK, 36 + dataBytes), 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * channels * 2, 28);
  header.writeUInt16LE(channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(Math.min(MAX_CHUNK, dataBytes), 40);
  return header;
}
