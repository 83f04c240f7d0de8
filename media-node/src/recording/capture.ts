import type { Session } from '../session/session.js';

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
  readonly session: Session;
  readonly recordingId: string;
  /** The WAV as this node sees it: RECORDINGS_DIR/<session id>/<recording id>.wav. */
  readonly path: string;
  readonly sampleRate: number;
  /** FreeSWITCH ended the recording on its own (not by halt() or the call's hangup). */
  readonly onLost: () => void;
}

/** Seconds of 16-bit mono audio in `bytes`, to the millisecond. */
export const secondsOf = (bytes: number, sampleRate: number): number =>
  Math.round((bytes / (sampleRate * 2)) * 1000) / 1000;
