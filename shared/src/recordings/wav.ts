// The canonical 44-byte header of a PCM WAV file (what the recording receiver writes and what the
// api serves), and how to read the header of any writer's WAV (FreeSWITCH's included).

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

/** Where a WAV file's samples start and how they are laid out, read from its first bytes. */
export interface WavLayout {
  readonly sampleRate: number;
  readonly channels: number;
  /** Bytes per sample frame (all channels). */
  readonly blockAlign: number;
  readonly byteRate: number;
  /** Offset of the first sample. */
  readonly dataOffset: number;
  /** The data chunk's size as the header says it: 0 while FreeSWITCH (libsndfile) still writes. */
  readonly declaredBytes: number;
}

/** How much of a file is enough to find its data chunk (headers with extra chunks included). */
export const WAV_HEAD_BYTES = 4096;

/**
 * Reads the fmt and data chunk headers of a 16-bit PCM WAV from its first bytes (up to
 * WAV_HEAD_BYTES); undefined when they are not (yet) there. Extra chunks before the data (LIST,
 * fact...) are skipped, so any writer's file is read, not only the canonical 44-byte header.
 */
export function readWavLayout(head: Buffer): WavLayout | undefined {
  if (head.length < 12 || head.toString('ascii', 0, 4) !== 'RIFF') return undefined;
  if (head.toString('ascii', 8, 12) !== 'WAVE') return undefined;
  let fmt: Omit<WavLayout, 'dataOffset' | 'declaredBytes'> | undefined;
  let offset = 12;
  while (offset + 8 <= head.length) {
    const id = head.toString('ascii', offset, offset + 4);
    const size = head.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ' && body + 16 <= head.length) {
      const channels = head.readUInt16LE(body + 2);
      const bits = head.readUInt16LE(body + 14);
      if (bits !== 16 || channels < 1) return undefined;
      fmt = {
        channels,
        sampleRate: head.readUInt32LE(body + 4),
        byteRate: head.readUInt32LE(body + 8),
        blockAlign: channels * 2,
      };
    } else if (id === 'data') {
      return fmt && { ...fmt, dataOffset: body, declaredBytes: size };
    }
    offset = body + size + (size % 2);
  }
  return undefined;
}

/**
 * The bytes of whole sample frames in a file of `fileSize` bytes: the header's data size when it
 * is set and the file holds that much (a finished file, perhaps with chunks after the data),
 * otherwise everything after the header (a file still being written, whose sizes are stale).
 */
export function wavDataBytes(layout: WavLayout, fileSize: number): number {
  const available = Math.max(0, fileSize - layout.dataOffset);
  const declared = layout.declaredBytes;
  const bytes =
    declared > 0 && declared < MAX_CHUNK && declared <= available ? declared : available;
  return bytes - (bytes % layout.blockAlign);
}
