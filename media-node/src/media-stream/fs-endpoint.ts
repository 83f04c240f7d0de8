import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import type { RecordingReceiver } from '../recording/receiver.js';

/** The path FreeSWITCH's module connects to, under the receiver's server: `/media/<stream id>`. */
export const MEDIA_PATH = '/media/';

/** Addresses a connection from this machine comes from. */
const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * FreeSWITCH's side of media streams: the path `/media/<stream id>` of the recording receiver's
 * WebSocket server. A stream is expected from just before `uuid_audio_stream … start` until its
 * connection or its failure; the first connection from loopback to an expected id takes it
 * (the ids are known to the applications, so a connection from elsewhere is refused), every
 * other one is answered 404.
 */
export class MediaEndpoint {
  private readonly waiting = new Map<string, (socket: WebSocket) => void>();

  constructor(receiver: RecordingReceiver) {
    receiver.mount(MEDIA_PATH, (rest, request) => this.claim(rest, request));
  }

  /** Streams waiting for FreeSWITCH's connection. */
  get size(): number {
    return this.waiting.size;
  }

  /** `take` gets FreeSWITCH's connection for this stream; returns the cancel of the wait. */
  expect(streamId: string, take: (socket: WebSocket) => void): () => void {
    this.waiting.set(streamId, take);
    return () => {
      if (this.waiting.get(streamId) === take) this.waiting.delete(streamId);
    };
  }

  private claim(rest: string, request: IncomingMessage): ((socket: WebSocket) => void) | undefined {
    if (!LOOPBACK.has(request.socket.remoteAddress ?? '')) return undefined;
    const take = this.waiting.get(rest);
    if (take) this.waiting.delete(rest);
    return take;
  }
}
