import { describe } from '../commands/types.js';
import { secondsOf, type Capture, type CaptureTarget } from './capture.js';
import type { ExpectedStream, RecordingReceiver } from './receiver.js';
import { WavWriter } from './wav-writer.js';

/**
 * How long a stop waits for FreeSWITCH to close the stream (its last frames) before the file is
 * finalised with what has arrived; record/stop answers at once, so this stays short.
 */
const STREAM_END_TIMEOUT_MS = 1000;

/**
 * RECORDING_MODE=stream: FreeSWITCH streams mono L16 (mod_audio_stream) to this node's receiver
 * at `<RECORDING_SERVICE_URL>/<session id>/<recording id>`; the WAV writer appends the frames
 * and keeps the file's header current.
 */
export class StreamCapture implements Capture {
  private constructor(
    private readonly target: CaptureTarget,
    private readonly writer: WavWriter,
    private readonly stream: ExpectedStream,
    private readonly url: string,
  ) {}

  static async create(
    target: CaptureTarget,
    receiver: RecordingReceiver,
    serviceUrl: string,
  ): Promise<StreamCapture> {
    const { session, recordingId } = target;
    const writer = await WavWriter.create(target.path, target.sampleRate);
    const stream = receiver.expect(session.id, recordingId, { audio: (f) => writer.append(f) });
    const url = `${serviceUrl.replace(/\/+$/, '')}/${session.id}/${recordingId}`;
    return new StreamCapture(target, writer, stream, url);
  }

  async begin(): Promise<string | undefined> {
    const { channel } = this.target.session;
    const rate = `${this.target.sampleRate / 1000}k`;
    const reply = await channel
      .api(`uuid_audio_stream ${channel.uuid} start ${this.url} mono ${rate}`)
      .catch(describe);
    return reply.startsWith('+OK') ? undefined : reply.trim();
  }

  async halt(): Promise<void> {
    const { session } = this.target;
    const { channel } = session;
    try {
      const reply = await channel.api(`uuid_audio_stream ${channel.uuid} stop`);
      // -ERR: the stream had already ended (FreeSWITCH dropped it); the file is still finalised.
      if (!reply.startsWith('+OK')) session.log.warn({ reply }, 'uuid_audio_stream stop refused');
    } catch (err) {
      session.log.warn({ err: describe(err) }, 'uuid_audio_stream stop failed');
    }
  }

  async settle(): Promise<number> {
    await this.stream.end(STREAM_END_TIMEOUT_MS);
    const bytes = await this.writer.finish();
    if (this.writer.failure) {
      this.target.session.log.error({ err: this.writer.failure }, 'recording write failed');
    }
    return secondsOf(bytes, this.writer.sampleRate);
  }

  async abort(): Promise<void> {
    await this.stream.end(0);
    await this.writer.finish();
  }
}
