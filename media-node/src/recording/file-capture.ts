import { chmod, mkdir, open, writeFile } from 'node:fs/promises';
import { dirname, posix } from 'node:path';
import { readWavLayout, wavDataBytes, wavHeader, WAV_HEAD_BYTES } from '@voicegw/shared';
import { describe } from '../commands/types.js';
import type { FsEvent } from '../esl/event.js';
import type { Capture, CaptureTarget } from './capture.js';

/**
 * How long the end of a recording waits for RECORD_STOP (FreeSWITCH closes the file, then fires
 * it: trace e) before it takes the file as it is.
 */
const RECORD_STOP_TIMEOUT_MS = 2000;

/**
 * RECORDING_MODE=file: FreeSWITCH records the call itself with `uuid_record` (in every
 * FreeSWITCH) into the recordings volume it shares with this node, at
 * `<FS_RECORDINGS_DIR>/<session id>/<recording id>.wav`, where the store expects it. FreeSWITCH
 * writes the WAV header's sizes only when it closes the file (the api serves a running
 * recording from the file's size), and fires RECORD_STOP once the file is closed: on
 * `uuid_record stop` (`success-maxtime`) and on hangup (`success-silence`).
 */
export class FileCapture implements Capture {
  private readonly stopped: Promise<FsEvent | undefined>;
  private resolveStopped!: (event: FsEvent | undefined) => void;
  private begun = false;
  private halting = false;

  constructor(
    private readonly target: CaptureTarget,
    /** The same file as FreeSWITCH names it. */
    private readonly fsPath: string,
  ) {
    this.stopped = new Promise((resolve) => (this.resolveStopped = resolve));
    const { channel } = target.session;
    channel.on('event', this.onEvent);
    channel.once('gone', this.onGone);
  }

  /**
   * The session's directory is made here, open to FreeSWITCH's user whatever it is, so that
   * FreeSWITCH can write into it and this node (its owner) can delete what FreeSWITCH wrote.
   */
  static async create(target: CaptureTarget, fsRecordingsDir: string, relativePath: string) {
    const dir = dirname(target.path);
    await mkdir(dir, { recursive: true });
    await chmod(dir, 0o777);
    return new FileCapture(target, posix.join(fsRecordingsDir, relativePath));
  }

  async begin(): Promise<string | undefined> {
    const { channel } = this.target.session;
    const reply = await channel
      .api(`uuid_record ${channel.uuid} start ${this.fsPath}`)
      .catch(describe);
    this.begun = reply.startsWith('+OK');
    return this.begun ? undefined : reply.trim();
  }

  async halt(): Promise<void> {
    this.halting = true;
    const { session } = this.target;
    const { channel } = session;
    const reply = await channel
      .api(`uuid_record ${channel.uuid} stop ${this.fsPath}`)
      .catch(describe);
    // -ERR Cannot stop record session!: FreeSWITCH had already ended it; RECORD_STOP said so.
    if (!reply.startsWith('+OK'))
      session.log.warn({ reply: reply.trim() }, 'uuid_record stop refused');
  }

  async settle(): Promise<number> {
    const stop = this.begun ? await this.waitStopped() : undefined;
    this.detach();
    const fromFile = await this.fileSeconds();
    if (fromFile !== undefined) return fromFile;
    // No file: FreeSWITCH discards a recording with no audio (or never began one). The URL must
    // still serve a WAV, so an empty one takes its place.
    const { session, path, sampleRate } = this.target;
    const recordedMs = Number(stop?.variable('record_ms') ?? 0);
    if (recordedMs > 0) {
      session.log.error(
        { path, fs_path: this.fsPath, record_ms: recordedMs },
        'FreeSWITCH recorded audio that is not in RECORDINGS_DIR: check the shared volume and FS_RECORDINGS_DIR',
      );
    }
    await writeFile(path, wavHeader(0, sampleRate)).catch((err: unknown) =>
      session.log.error({ err }, 'empty recording not written'),
    );
    return 0;
  }

  async abort(): Promise<void> {
    this.detach();
  }

  private async waitStopped(): Promise<FsEvent | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), RECORD_STOP_TIMEOUT_MS);
    });
    const event = await Promise.race([this.stopped, late]);
    clearTimeout(timer);
    if (!event) this.target.session.log.warn('no RECORD_STOP: the file is taken as it is');
    return event;
  }

  /** Seconds of audio in the file, from its header and size; undefined when there is no WAV. */
  private async fileSeconds(): Promise<number | undefined> {
    const file = await open(this.target.path, 'r').catch(() => undefined);
    if (!file) return undefined;
    try {
      const { size } = await file.stat();
      const head = Buffer.alloc(Math.min(size, WAV_HEAD_BYTES));
      const { bytesRead } = await file.read(head, 0, head.length, 0);
      const layout = readWavLayout(head.subarray(0, bytesRead));
      if (!layout) return undefined;
      return Math.round((wavDataBytes(layout, size) / layout.byteRate) * 1000) / 1000;
    } finally {
      await file.close();
    }
  }

  private readonly onEvent = (event: FsEvent): void => {
    if (event.name !== 'RECORD_STOP' || event.header('Record-File-Path') !== this.fsPath) return;
    this.resolveStopped(event);
    // Hung up: the Recorder ends it on CHANNEL_HANGUP already.
    if (!this.halting && event.header('Answer-State') !== 'hangup') this.target.onLost();
  };

  private readonly onGone = (): void => this.resolveStopped(undefined);

  private detach(): void {
    const { channel } = this.target.session;
    channel.off('event', this.onEvent);
    channel.off('gone', this.onGone);
  }
}
