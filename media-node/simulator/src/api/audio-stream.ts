// uuid_audio_stream (mod_audio_stream.c stream_function): the arguments split as FreeSWITCH
// splits them (the sixth, the metadata, is the rest of the line), the module's checks in its
// order, and its replies; start reads the STREAM_* channel variables (audio_streamer_glue.cpp
// stream_session_init).
import type { Channel } from '../core/channel.js';
import type { SimContext } from '../core/context.js';
import { encodeBytes } from '../esl/raw-text.js';
import { AudioStream, streamOf, type StreamSettings } from '../media/audio-stream.js';
import { MIX_TYPES, type MixType } from '../media/stream-frames.js';
import {
  MAX_ARGS,
  METADATA_MAX_CHARS,
  START_ANSWERS_CALL,
  STREAM_REPLY,
} from '../media/stream-protocol.js';
import { separateString } from './separate-string.js';
import type { ApiHandler } from './types.js';

/** C's atoi: leading blanks, a sign, digits; 0 when there are none. */
function atoi(text: string): number {
  const m = /^\s*([+-]?\d+)/.exec(text);
  return m ? Number.parseInt(m[1]!, 10) : 0;
}

/** validate_ws_uri: ws:// or wss://, a host of letters, digits, `-` and `.`, digits as port. */
const WS_URI = /^wss?:\/\/[A-Za-z0-9.-]+(:\d*)?(\/.*)?$/s;

/**
 * is_valid_utf8 (audio_streamer_glue.cpp): each lead byte followed by its continuation bytes,
 * without looking at what they encode.
 */
function isValidUtf8(text: string): boolean {
  const bytes = encodeBytes(text);
  for (let i = 0; i < bytes.length;) {
    const n = leadLength(bytes[i]!);
    if (n === 0) return false;
    for (let k = 1; k < n; k++) if (((bytes[i + k] ?? 0) & 0xc0) !== 0x80) return false;
    i += n;
  }
  return true;
}

/** The bytes of a character that begins with `lead`, by its high bits; 0 if none does. */
function leadLength(lead: number): number {
  if (lead < 0x80) return 1;
  if ((lead & 0xe0) === 0xc0) return 2;
  if ((lead & 0xf0) === 0xe0) return 3;
  return (lead & 0xf8) === 0xf0 ? 4 : 0;
}

/** `8k`, `16k`, or atoi of anything else (so `16000`); default 8000. */
function rateOf(spec: string | undefined): number {
  if (spec === undefined || spec === '8k') return 8000;
  return spec === '16k' ? 16000 : atoi(spec);
}

/**
 * The channel variables a start reads. Unset, DEFLATE and HEART_BEAT are uninitialised in the
 * module; the released 1.10.12 build (-O3) never offered permessage-deflate whatever the
 * variable said, and sent no pings without STREAM_HEART_BEAT.
 */
function variables(ch: Channel): Omit<StreamSettings, 'url' | 'mix' | 'rate' | 'metadata'> {
  const size = atoi(ch.vars.get('STREAM_BUFFER_SIZE') ?? '');
  const beat = ch.vars.get('STREAM_HEART_BEAT');
  return {
    bufferFrames: size % 20 === 0 && size >= 20 ? size / 20 : 1,
    deflate: false,
    heartBeatSec: beat !== undefined && /^[+-]?\d+$/.test(beat) ? Math.max(0, Number(beat)) : 0,
    headers: headersOf(ch.vars.get('STREAM_EXTRA_HEADERS')),
  };
}

/** STREAM_EXTRA_HEADERS: a JSON object; its string members become upgrade request headers. */
function headersOf(json: string | undefined): Record<string, string> {
  if (!json) return {};
  try {
    const parsed: unknown = JSON.parse(json);
    if (typeof parsed !== 'object' || parsed === null) return {};
    return Object.fromEntries(
      Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'),
    );
  } catch {
    return {};
  }
}

function start(ctx: SimContext, ch: Channel, argv: readonly string[]): string {
  const [, , url = '', mix = '', rateSpec, metadata] = argv;
  // With metadata the module checks the URL's bytes (not the metadata's, which go as they are).
  if (metadata !== undefined && !isValidUtf8(url)) return STREAM_REPLY.none;
  if (!MIX_TYPES.has(mix)) return STREAM_REPLY.none;
  const rate = rateOf(rateSpec);
  if (!WS_URI.test(url) || rate % 8000 !== 0 || rate <= 0) return STREAM_REPLY.failed;
  // start_capture: one bug named audio_stream per channel.
  if (streamOf(ch)) return STREAM_REPLY.failed;
  // switch_channel_answer leaves an outbound leg alone; without media it has no read codec.
  if (START_ANSWERS_CALL && ch.profile.direction === 'inbound') ch.answer();
  if (!ch.mediaReady) return STREAM_REPLY.failed;
  const stream = new AudioStream(ctx, ch, {
    url,
    mix: mix as MixType,
    rate,
    metadata: metadata?.slice(0, METADATA_MAX_CHARS),
    ...variables(ch),
  });
  ch.bugs.add(stream);
  stream.open();
  return STREAM_REPLY.ok;
}

export const uuidAudioStream: ApiHandler = (ctx, arg) => {
  const argv = separateString(arg, MAX_ARGS);
  if (!arg || argv.length < 2 || (argv[1] === 'start' && argv.length < 4)) {
    return STREAM_REPLY.usage;
  }
  const ch = ctx.channels.get(argv[0]!);
  if (!ch?.alive) return STREAM_REPLY.failed;
  const stream = streamOf(ch);
  switch (argv[1]!.toLowerCase()) {
    case 'start':
      return start(ctx, ch, argv);
    case 'stop':
      // Only the third token is the final text (the rest of the line goes to the sixth).
      if (argv[2] !== undefined && !isValidUtf8(argv[2])) return STREAM_REPLY.none;
      stream?.stop(argv[2]);
      return stream ? STREAM_REPLY.ok : STREAM_REPLY.failed;
    case 'pause':
    case 'resume':
      stream?.setPaused(argv[1]!.toLowerCase() === 'pause');
      return stream ? STREAM_REPLY.ok : STREAM_REPLY.failed;
    case 'send_text':
      if (argv.length < 3 || !isValidUtf8(argv[2]!)) return STREAM_REPLY.none;
      stream?.sendText(argv[2]!);
      return stream ? STREAM_REPLY.ok : STREAM_REPLY.failed;
    default:
      // graceful-shutdown is in the usage text but not implemented.
      return STREAM_REPLY.failed;
  }
};
