import type { EventName, EventPayload, Logger } from '@voicegw/shared';
import type { Channel } from '../session/channel.js';
import type { Playback } from '../session/playback.js';

/** What recording a call takes of its session (a Session is one). */
export interface RecordedSession {
  readonly id: string;
  readonly appId: string;
  readonly log: Logger;
  /** Its hangup ends the recording; the captures' commands go through it. */
  readonly channel: Channel;
  /** Queues work in the session's order (the end of a recording, its event). */
  enqueue(task: () => Promise<unknown>): void;
  publish<N extends EventName>(payload: EventPayload<N>): Promise<void>;
}

/**
 * How the audio of one recording reaches its file (RECORDING_MODE): FreeSWITCH writes the file
 * itself (file-capture.ts) or streams the audio to this node, which writes it
 * (stream-capture.ts). The Recorder does the rest the same way for both.
 */
export interface Capture {
  /** Has FreeSWITCH begin; resolves with its refusal (the reply) or undefined when it took it. */
  begin(): Promise<string | undefined>;
  /** Has FreeSWITCH stop (record/stop); a refusal is logged, the recording ends all the same. */
  halt(): Promise<void>;
  /**
   * Waits (briefly) until the file is complete and there, and resolves with the seconds of audio
   * in it. Stops listening to FreeSWITCH.
   */
  settle(): Promise<number>;
  /** The node is going away: keeps what the file has, waits for nothing, sends nothing. */
  abort(): Promise<void>;
}

export interface CaptureTarget {
  readonly session: RecordedSession;
  readonly recordingId: string;
  /** The WAV as this node sees it: RECORDINGS_DIR/<session id>/<recording id>.wav. */
  readonly path: string;
  readonly sampleRate: number;
  /** FreeSWITCH ended the recording on its own (not by halt() or the call's hangup). */
  readonly onLost: () => void;
}

/** One recording in progress on a session. */
export interface ActiveRecording {
  readonly id: string;
  /** command_uid of the record/start, carried by recording.completed. */
  readonly commandUid: string;
  readonly startedAt: number;
  /** How its audio reaches the file (RECORDING_MODE). */
  readonly capture: Capture;
  /** The endless silence stream record/start started (stopped by record/stop). */
  silence: Playback | undefined;
  /** Stops watching the channel for its hangup. */
  readonly unwatch: () => void;
}

/** What a stopped recording reports in recording.completed. */
export interface CompletedRecording {
  readonly recordingId: string;
  readonly commandUid: string;
  readonly url: string;
  /** Seconds of audio in the file. */
  readonly duration: number;
}

/** Seconds of 16-bit mono audio in `bytes`, to the millisecond. */
export const secondsOf = (bytes: number, sampleRate: number): number =>
  Math.round((bytes / (sampleRate * 2)) * 1000) / 1000;
