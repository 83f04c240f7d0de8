import type { Logger, StreamTrack } from '@voicegw/shared';
import { describe } from '../commands/types.js';
import type { FsEvent } from '../esl/event.js';
import type { Channel } from '../session/channel.js';
import { streamLayout } from './tracks.js';

// FreeSWITCH's mod_audio_stream as a media stream drives it: `uuid_audio_stream` and the CUSTOM
// events it fires on the channel.

/**
 * Set before every start: two of them are read uninitialised by the module otherwise (random
 * compression and ping interval); no log line per message.
 */
const START_VARIABLES = [
  ['STREAM_MESSAGE_DEFLATE', 'true'],
  ['STREAM_HEART_BEAT', '0'],
  ['STREAM_SUPPRESS_LOG', 'true'],
] as const;

const FAILED_START = 'FreeSWITCH could not start the stream';

/**
 * Has the module stream the call to `url` (8 kHz: `mono` for the caller alone, `stereo` for
 * anything with what the call hears); resolves with the refusal, or undefined once it took it
 * (it then connects on its own).
 */
export async function startModuleStream(
  channel: Channel,
  url: string,
  track: StreamTrack,
): Promise<string | undefined> {
  const { uuid } = channel;
  try {
    for (const reply of await Promise.all(
      START_VARIABLES.map(([name, value]) => channel.api(`uuid_setvar ${uuid} ${name} ${value}`)),
    )) {
      if (!reply.startsWith('+OK')) return `${FAILED_START}: ${reply.trim()}`;
    }
    const mix = streamLayout(track).mix;
    const reply = await channel.api(`uuid_audio_stream ${uuid} start ${url} ${mix} 8k`);
    return reply.startsWith('+OK') ? undefined : `${FAILED_START}: ${reply.trim()}`;
  } catch (err) {
    return `${FAILED_START}: ${describe(err)}`;
  }
}

/**
 * Has the module stop and detach from the call. A refusal is logged unless `quiet` (a start that
 * failed may have left nothing to stop); the stream ends here either way.
 */
export async function stopModuleStream(
  channel: Channel,
  log: Logger,
  quiet = false,
): Promise<void> {
  if (!channel.alive) return;
  try {
    const reply = await channel.api(`uuid_audio_stream ${channel.uuid} stop`);
    if (!reply.startsWith('+OK') && !quiet) log.warn({ reply }, 'uuid_audio_stream stop refused');
  } catch (err) {
    if (!quiet) log.warn({ err: describe(err) }, 'uuid_audio_stream stop failed');
  }
}

/** What went wrong in the module, and whether it has left the call already. */
export interface ModuleFailure {
  readonly failure: string;
  /** The module closed the stream itself: a `stop` would only be refused. */
  readonly detached: boolean;
}

/**
 * What a module event on the channel says went wrong, if it does: `::error` (a connect that
 * failed, a protocol error; the module closes the stream itself) or `::disconnect` (the node's
 * side closed, which a running stream never does on its own; the module stays attached, silent).
 */
export function moduleFailure(event: FsEvent): ModuleFailure | undefined {
  switch (event.header('Event-Subclass')) {
    case 'mod_audio_stream::error':
      return { failure: `${FAILED_START}: ${detail(event.body) ?? 'error'}`, detached: true };
    case 'mod_audio_stream::disconnect':
      return { failure: 'FreeSWITCH closed the stream', detached: false };
    default:
      return undefined;
  }
}

/** The text of a module event's body: `{"message":{"code":6,"error":"…"}}` and the like. */
function detail(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const message = (parsed as { message?: unknown } | null)?.message;
  if (typeof message === 'string') return message;
  if (typeof message !== 'object' || message === null) return undefined;
  const { error, reason, code } = message as Record<string, unknown>;
  const text = [error, reason].find((v): v is string => typeof v === 'string');
  return text ?? (typeof code === 'number' ? `code ${code}` : undefined);
}
