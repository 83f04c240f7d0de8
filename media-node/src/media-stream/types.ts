import type { EventPayload, StreamTrack } from '@voicegw/shared';
import type { RecordedSession } from '../recording/capture.js';

/**
 * What a media stream uses of its session (a Session is one); a recorded one too, since the two
 * share the call's one module stream.
 */
export interface StreamedSession extends RecordedSession {
  readonly callerId: string;
  readonly did: string;
  readonly metadata: Record<string, unknown> | undefined;
  /** Runs `task` in the session's order; resolves with it. */
  serial<T>(task: () => Promise<T>): Promise<T>;
}

/** One stream/start, as the media node runs it. */
export interface StreamRequest {
  /** The operation_id of the stream/start: the stream's id everywhere. */
  readonly streamId: string;
  readonly commandUid: string;
  readonly url: string;
  readonly track: StreamTrack;
  readonly bidirectional: boolean;
  readonly customParameters: Readonly<Record<string, string>>;
}

/**
 * How a stream/start is answered, called once, in the session's queue: `started` with the
 * stream.started event its command.result follows (both in one step); `failed` after
 * stream.failed is out, with the same reason.
 */
export interface StartReport {
  started(event: EventPayload<'stream.started'>): Promise<void>;
  failed(reason: string): Promise<void>;
}

/** Who wants the call's one mod_audio_stream stream (the module holds one per call). */
export type AudioForkUser = 'recording' | 'media stream';
