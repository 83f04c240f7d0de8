import type { SessionCommandName } from '@voicegw/shared';
import { Type, type TObject } from 'typebox';
import { REFUSED_WHILE_BRIDGED } from '../../domain/connect-commands.js';
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

const SCHEMA_ERRORS = errorBody(
  {},
  'A field fails its schema (`validation_failed`, `invalid_command_uid`).',
);

const CONNECT_COOLDOWN_MS = COOLDOWNS.bridge?.ms ?? 0;
const CONNECT_RATE_LIMITED = errorBody(
  {},
  "The app's rate limits (`rate_limited`, with Retry-After), or bridge, unbridge or transfer " +
    `on the session within ${CONNECT_COOLDOWN_MS} ms of the last (\`command_rate_limited\`).`,
);

/** Which session a bridge refusal is about: the commanded one or the peer. */
const EITHER_SESSION = {
  detail: Type.Object({
    session: Type.Union([Type.Literal('self'), Type.Literal('peer')], {
      description: 'The session at fault: the commanded one, or the bridge peer.',
    }),
  }),
};

const CANNOT_CONNECT =
  'is not answered (`not_answered`), is in a conference room (`in_conference`), or is ' +
  'bridged, being bridged or unbridged, or in a ringing transfer (`already_bridged`).';

const BRIDGED =
  'The session is bridged, being bridged or unbridged, or in a ringing transfer (`bridged`): ' +
  'unbridge first.';

/** The 409 of the commands a bridge excludes (REFUSED_WHILE_BRIDGED), with join's own. */
const EXCLUDED_ERRORS: {
  readonly [C in SessionCommandName]?: Readonly<Record<number, TObject>>;
} = Object.fromEntries(
  [...REFUSED_WHILE_BRIDGED].map((command) => {
    const own =
      command === 'conference/join'
        ? 'The session is in another room (`in_different_room`) or leaving one ' +
          '(`still_leaving`). '
        : '';
    return [command, { 409: errorBody({}, own + BRIDGED) }];
  }),
);

const CONNECT_ERRORS = {
  bridge: {
    400: errorBody(
      {},
      'A field fails its schema (`validation_failed`, `invalid_command_uid`), or ' +
        '`session_uuid` is the commanded session (`bridge_to_itself`).',
    ),
    403: errorBody(
      {},
      'The commanded session (`session_forbidden`) or the peer (`peer_forbidden`) belongs to ' +
        'another app.',
    ),
    404: errorBody(
      {},
      'No live session has the commanded id (`session_not_found`) or `session_uuid` ' +
        '(`peer_not_found`), or its media node is gone.',
    ),
    409: errorBody(
      EITHER_SESSION,
      `The session or the peer (\`detail.session\`) ${CANNOT_CONNECT}`,
    ),
    429: CONNECT_RATE_LIMITED,
  },
  unbridge: {
    400: SCHEMA_ERRORS,
    404: SESSION_GONE,
    409: errorBody(
      {},
      'The session is in no bridge (`not_bridged`), or its bridge is still being made or ' +
        'taken down, or its transfer rings (`bridge_pending`: wait for call.bridged, ' +
        "call.unbridged or the transfer's command.result; hang up the new leg to cancel a " +
        'transfer).',
    ),
    429: CONNECT_RATE_LIMITED,
  },
  transfer: {
    400: errorBody(
      {},
      'A field fails its schema (`validation_failed`, `invalid_command_uid`): `to` and `from` ' +
        'are Israeli domestic numbers, as for dial.',
    ),
    403: errorBody(
      {},
      'The session belongs to another app (`session_forbidden`), or `from` is not on the ' +
        "app's caller-ID allow-list (`cid_not_allowed`).",
    ),
    404: SESSION_GONE,
    409: errorBody(EITHER_SESSION, `The session ${CANNOT_CONNECT}`),
    429: CONNECT_RATE_LIMITED,
    503: errorBody(
      {},
      "The session's media node has no outbound capacity left, or is draining " +
        '(`no_fs_capacity`): retry with backoff.',
    ),
  },
} as const satisfies { readonly [C in SessionCommandName]?: Readonly<Record<number, TObject>> };

export const COMMAND_ERRORS: {
  readonly [C in SessionCommandName]?: Readonly<Record<number, TObject>>;
} = {
  ...EXCLUDED_ERRORS,
  ...CONNECT_ERRORS,
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
    400: SCHEMA_ERRORS,
    404: SESSION_GONE,
    409: errorBody({}, 'The session has no media stream (`no_stream`).'),
    429: STREAM_RATE_LIMITED,
  },
};
