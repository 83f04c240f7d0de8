import type { SessionCommandName } from '@voicegw/shared';
import type { TObject } from 'typebox';
import { COOLDOWNS } from '../../domain/cooldowns.js';
import { errorBody } from '../../errors/schema.js';

// The errors a command documents one by one in the OpenAPI document, beside the 4xx and 5xx
// bodies every command has: those its clients are expected to handle.

const SESSION_GONE = errorBody(
  {},
  'No live session has this id, or its media node is gone (`session_not_found`).',
);

const STREAM_COOLDOWN_MS = COOLDOWNS['stream/start']?.ms ?? 0;
const STREAM_RATE_LIMITED = errorBody(
  {},
  "The app's rate limits (`rate_limited`), or stream/start or stream/stop on the session " +
    `within ${STREAM_COOLDOWN_MS} ms of the last (\`command_rate_limited\`); with Retry-After.`,
);

export const COMMAND_ERRORS: {
  readonly [C in SessionCommandName]?: Readonly<Record<number, TObject>>;
} = {
  'stream/start': {
    400: errorBody(
      {},
      'A field fails its schema (`validation_failed`, `invalid_command_uid`), or `url` is ' +
        'refused (`invalid_stream_url`): `wss://` unless ALLOW_HTTP_WEBHOOKS allows `ws://`, ' +
        'and a host that resolves, to no private, loopback or link-local address unless ' +
        'ALLOW_LOCALHOST_WEBHOOKS; or a bidirectional stream of a track other than inbound ' +
        '(`bidirectional_track`).',
    ),
    404: SESSION_GONE,
    409: errorBody(
      {},
      'The session already has a media stream (`stream_already_running`): one per session.',
    ),
    429: STREAM_RATE_LIMITED,
  },
  'stream/stop': {
    400: errorBody({}, 'A field fails its schema (`validation_failed`, `invalid_command_uid`).'),
    404: SESSION_GONE,
    409: errorBody({}, 'The session has no media stream (`no_stream`).'),
    429: STREAM_RATE_LIMITED,
  },
};
