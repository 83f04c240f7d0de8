import type { RawData } from 'ws';

/** A text frame's content (ws hands over a Buffer unless told otherwise). */
export const wsText = (data: RawData): string =>
  (Buffer.isBuffer(data)
    ? data
    : Array.isArray(data)
      ? Buffer.concat(data)
      : Buffer.from(data)
  ).toString('utf8');
