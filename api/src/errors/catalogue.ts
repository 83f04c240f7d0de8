/**
 * The one catalogue of client-visible errors: a name, the HTTP status and the contract's exact
 * message. Handlers throw `GatewayError`s built from it, and every error body is
 * `{success:false, error, code}`, `code` being the entry's name in lowercase (`ROUTE_NOT_FOUND` →
 * `route_not_found`): clients branch on it, never on message text, so a name, once released, is
 * never changed.
 */
interface ErrorEntry {
  readonly status: number;
  /** The contract's exact message, the body's `error`. */
  readonly message: string;
  /** When a client meets it, for docs/errors.md (generated from this catalogue). */
  readonly when: string;
}

export const ERRORS = {
  // 400
  MISSING_APP_ID: {
    status: 400,
    message: 'Missing X-App-ID header',
    when: 'An app route was called without the `X-App-ID` header.',
  },
  INVALID_APP_ID: {
    status: 400,
    message: 'Invalid X-App-ID format',
    when: '`X-App-ID` is not a valid app id.',
  },
  INVALID_BODY: {
    status: 400,
    message: 'Invalid request body',
    when: 'The body is not valid JSON, or is empty where one is required.',
  },
  INVALID_COMMAND: {
    status: 400,
    message: 'Invalid command',
    when: "The session command in the path is not one of the contract's commands.",
  },
  URLS_REQUIRED: {
    status: 400,
    message: 'urls is required',
    when: 'A playback command came without a non-empty `urls` list.',
  },
  INVALID_COMMAND_UID: {
    status: 400,
    message: 'Invalid command_uid format',
    when: '`command_uid` is not 1–128 characters of the allowed set.',
  },
  VALIDATION_FAILED: {
    status: 400,
    message: 'Invalid request',
    when: 'A field, parameter or query value fails its schema; the message names it.',
  },
  INVALID_CURSOR: {
    status: 400,
    message: 'Invalid cursor',
    when: "A list's `cursor` was not issued by the gateway for that list.",
  },
  INVALID_LIMIT: {
    status: 400,
    message: 'Invalid limit',
    when: "A list's `limit` is not a whole number from 1 to 100.",
  },
  INVALID_WEBHOOK_URL: {
    status: 400,
    message: 'Invalid webhook_url',
    when: "An app's `webhook_url` is not an http(s) URL to a public address.",
  },
  INVALID_STREAM_URL: {
    status: 400,
    message: 'Invalid media stream url',
    when: "`stream/start`'s `url` is not a ws(s) URL to a public address; the message says why.",
  },
  BIDIRECTIONAL_TRACK: {
    status: 400,
    message: 'A bidirectional stream carries the inbound track only',
    when: '`stream/start` with `bidirectional: true` and a `track` other than `inbound`.',
  },
  BRIDGE_TO_ITSELF: {
    status: 400,
    message: 'A session cannot be bridged to itself',
    when: "`bridge`'s `session_uuid` is the commanded session's own id.",
  },
  // HTTP-level faults the framework or node's parser finds before any route runs.
  BODY_LENGTH_MISMATCH: {
    status: 400,
    message: 'Request body length does not match Content-Length',
    when: 'The body received is shorter or longer than its `Content-Length` header says.',
  },
  BAD_REQUEST: {
    status: 400,
    message: 'Bad request',
    when: 'The request line or a header is not valid HTTP, or fastify refused it before routing.',
  },
  MALFORMED_REQUEST: {
    status: 400,
    message: 'Malformed HTTP request',
    when: 'What arrived on the connection is not an HTTP request node can parse.',
  },
  INVALID_URL: {
    status: 400,
    message: 'Invalid URL: malformed percent-encoding',
    when: 'The path has a `%` not followed by a valid UTF-8 escape, e.g. `%ff%fe`.',
  },
  // 401
  MISSING_API_KEY: {
    status: 401,
    message: 'Missing API key',
    when: 'An app route was called without the `X-API-Key` header.',
  },
  INVALID_API_KEY: {
    status: 401,
    message: 'Invalid API key',
    when: '`X-API-Key` does not belong to the app named by `X-App-ID`.',
  },
  MISSING_ADMIN_KEY: {
    status: 401,
    message: 'Missing X-Admin-API-Key header',
    when: 'An admin route was called without the `X-Admin-API-Key` header.',
  },
  INVALID_ADMIN_KEY: {
    status: 401,
    message: 'Invalid admin API key',
    when: '`X-Admin-API-Key` is not the configured admin key.',
  },
  // 403
  SESSION_FORBIDDEN: {
    status: 403,
    message: 'Session belongs to a different application',
    when: 'The session exists but belongs to another app.',
  },
  ROOM_FORBIDDEN: {
    status: 403,
    message: 'Room belongs to a different application',
    when: 'The room exists but belongs to another app.',
  },
  PEER_FORBIDDEN: {
    status: 403,
    message: 'The peer session belongs to a different application',
    when: "`bridge`'s `session_uuid` is a session of another app.",
  },
  CID_NOT_ALLOWED: {
    status: 403,
    message: 'from is not on the caller-ID allow-list',
    when: "A dial's or a transfer's `from` is not on the app's caller-ID allow-list.",
  },
  // 404
  ROUTE_NOT_FOUND: {
    status: 404,
    message: 'Route not found',
    when: 'No route has this method and path.',
  },
  SESSION_NOT_FOUND: {
    status: 404,
    message: 'Session not found',
    when: 'No live session has this id, or its media node is gone.',
  },
  ROOM_NOT_FOUND: {
    status: 404,
    message: 'Room not found',
    when: 'No room has this id.',
  },
  NOT_IN_CONFERENCE: {
    status: 404,
    message: 'Session is not in a conference',
    when: '`conference/leave`, `mute` or `unmute` for a session in no room.',
  },
  PEER_NOT_FOUND: {
    status: 404,
    message: 'Peer session not found',
    when: "`bridge`'s `session_uuid` names no live session, or its media node is gone.",
  },
  DIAL_NOT_FOUND: {
    status: 404,
    message: 'Dial not found',
    when: 'No dial of this app has this session id (or its record expired).',
  },
  APP_NOT_FOUND: {
    status: 404,
    message: 'App not found',
    when: 'An admin route names an app that does not exist.',
  },
  CID_NOT_FOUND: {
    status: 404,
    message: 'Caller ID not found',
    when: "DELETE of a caller ID that is not on the app's list.",
  },
  DID_NOT_FOUND: {
    status: 404,
    message: 'DID not found',
    when: 'DELETE of a DID that is not routed to the app.',
  },
  RECORDING_NOT_FOUND: {
    status: 404,
    message: 'Recording not found',
    when: 'The recording does not exist or its retention ended (answered with an empty body).',
  },
  // 409
  CONFERENCE_NAME_TAKEN: {
    status: 409,
    message: 'Conference name already taken',
    when: 'A room with this name already exists for the app (body `detail.room_id`).',
  },
  IN_DIFFERENT_ROOM: {
    status: 409,
    message: 'Session is already in a different conference room; use conference/leave first',
    when: '`conference/join` for a session already in another room.',
  },
  ALREADY_MUTED: {
    status: 409,
    message: 'Member is already muted',
    when: '`conference/mute` for a member already muted.',
  },
  ALREADY_UNMUTED: {
    status: 409,
    message: 'Member is already unmuted',
    when: '`conference/unmute` for a member not muted.',
  },
  STILL_JOINING: {
    status: 409,
    message: 'Member is still joining the conference',
    when: "A membership command while the session's join is still in progress.",
  },
  STILL_LEAVING: {
    status: 409,
    message: 'Member is leaving the conference',
    when: 'A membership command while the session is leaving its room.',
  },
  STREAM_ALREADY_RUNNING: {
    status: 409,
    message: 'Session already has a media stream',
    when: '`stream/start` while a media stream of the session is running (one per session).',
  },
  NO_STREAM: {
    status: 409,
    message: 'Session has no media stream',
    when: '`stream/stop` while no media stream of the session is running.',
  },
  NOT_ANSWERED: {
    status: 409,
    message: 'Session is not answered',
    when:
      '`bridge` or `transfer` on a session not answered yet, or `bridge` to one; ' +
      '`detail.session` says which, `self` or `peer` (whose message says so).',
  },
  IN_CONFERENCE: {
    status: 409,
    message: 'Session is in a conference; use conference/leave first',
    when:
      '`bridge` or `transfer` on a session in a conference room, or `bridge` to one; ' +
      '`detail.session` says which, `self` or `peer`.',
  },
  ALREADY_BRIDGED: {
    status: 409,
    message: 'Session is already bridged; use unbridge first',
    when:
      '`bridge` or `transfer` on a session bridged, being bridged or unbridged, or in a ' +
      'ringing transfer (either side); or `bridge` to one; `detail.session` says which.',
  },
  NOT_BRIDGED: {
    status: 409,
    message: 'Session is not bridged',
    when: '`unbridge` on a session in no bridge.',
  },
  BRIDGE_PENDING: {
    status: 409,
    message:
      'Session is being bridged or unbridged, or its transfer is ringing; wait for its event',
    when:
      '`unbridge` before `call.bridged`, after another `unbridge`, or while a transfer rings ' +
      '(hang up its new leg to cancel it).',
  },
  BRIDGED: {
    status: 409,
    message: 'Session is bridged; use unbridge first',
    when:
      '`playback/start`, `playback/silence`, `play_and_get_digits` or `conference/join` on a ' +
      'bridged session, or one being bridged or transferred.',
  },
  DID_TAKEN: {
    status: 409,
    message: 'DID is already routed to another application',
    when: 'A DID routed to another app was added to this one.',
  },
  WEBHOOKS_OFF: {
    status: 409,
    message: 'Webhooks are disabled for this application (empty webhook_url)',
    when: 'Dead letters replayed for an app with an empty `webhook_url`.',
  },
  APP_DISABLED: {
    status: 409,
    message: 'Application is disabled; POST its configuration to re-enable it',
    when: 'Dead letters replayed for an app disabled after failing for 5 days.',
  },
  // 408, 413, 414, 415, 422, 429, 431
  REQUEST_TIMEOUT: {
    status: 408,
    message: 'Request timeout',
    when: "The request did not arrive in full within the server's request timeout.",
  },
  BODY_TOO_LARGE: {
    status: 413,
    message: 'Request body too large',
    when: 'The body is larger than the route accepts (1 MiB; 64 KiB for session commands).',
  },
  PARAM_TOO_LONG: {
    status: 414,
    message: 'Path parameter too long',
    when: 'A path parameter is longer than 100 characters.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    message: 'Content-Type must be application/json',
    when: 'A body was sent with a Content-Type other than `application/json`.',
  },
  COMMAND_UID_REUSED: {
    status: 422,
    message: 'command_uid was already used on this session for a different command or body',
    when: 'A `command_uid` is sent again on the session with another command or other arguments.',
  },
  RATE_LIMITED: {
    status: 429,
    message: 'Rate limit exceeded',
    when: 'A client IP went over its per-second window, or the app over its `rate_limit` (with `Retry-After`).',
  },
  COMMAND_RATE_LIMITED: {
    status: 429,
    message: 'Command rate limited',
    when: "A command repeated within its cooldown group's window on one session (with `Retry-After`).",
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    message: 'Request headers too large',
    when: 'The request headers are larger than node accepts (16 KiB).',
  },
  // 5xx
  AUTH_BACKEND_FAILED: {
    status: 500,
    message: 'Internal error validating API key',
    when: 'The app directory could not be read while checking an API key.',
  },
  INTERNAL: {
    status: 500,
    message: 'Internal server error',
    when: "An unexpected failure; the request id is in the api's log.",
  },
  DIAL_FAILED: {
    status: 500,
    message: 'Internal error placing the dial',
    when: 'The dial could not be recorded or queued.',
  },
  ADMIN_STORE_FAILED: {
    status: 500,
    message: 'Failed to access the configuration store',
    when: 'An admin change could not be written to Redis.',
  },
  ADMIN_NOT_CONFIGURED: {
    status: 503,
    message: 'Admin API not configured',
    when: 'Admin routes called while `ADMIN_API_KEY` is unset.',
  },
  CONFIG_STORE_UNAVAILABLE: {
    status: 503,
    message: 'Configuration store unavailable',
    when: 'Redis is unreachable while reading or writing app configuration.',
  },
  RECORDING_UNAVAILABLE: {
    status: 503,
    message: 'Recording not available',
    when: '`record/start` with `RECORDING_MODE=off`, or in stream mode without `RECORDING_SERVICE_URL`.',
  },
  NO_FS_CAPACITY: {
    status: 503,
    message: 'No outbound capacity; retry with backoff',
    when:
      "Every media node is at its outbound channel limit (dial), or the session's node is, or " +
      'is draining (transfer).',
  },
  NO_MEDIA_NODE: {
    status: 503,
    message: 'No media node available; retry with backoff',
    when: 'No live media node can host a new room.',
  },
  SHUTTING_DOWN: {
    status: 503,
    message: 'Server is shutting down; retry with backoff',
    when: 'The request reached an api instance that is closing (it also closes the connection).',
  },
} as const satisfies Record<string, ErrorEntry>;

/** A catalogue entry's name, as the source throws it: `new GatewayError('ROUTE_NOT_FOUND')`. */
export type ErrorName = keyof typeof ERRORS;

/** The body's `code`: the entry's name in lowercase, stable across releases. */
export type ErrorCode = Lowercase<ErrorName>;

export const errorCode = <N extends ErrorName>(name: N): Lowercase<N> =>
  name.toLowerCase() as Lowercase<N>;

/** Every code the api can answer, in catalogue order. */
export const ERROR_CODES: readonly ErrorCode[] = (Object.keys(ERRORS) as ErrorName[]).map(
  errorCode,
);

/** What every error answer carries; some errors add fields of their own (`detail`, `app_id`). */
export interface ErrorBody {
  readonly success: false;
  readonly error: string;
  readonly code: ErrorCode;
}

/** Fields an error adds to its body; they cannot replace the three every body has. */
export type ExtraErrorFields = Readonly<Record<string, unknown>> & {
  readonly [K in keyof ErrorBody]?: never;
};

export interface GatewayErrorOptions {
  /** Replaces the catalogue message (validation failures say what was wrong). */
  readonly message?: string;
  /** Extra body fields, e.g. `detail.room_id` of a taken conference name. */
  readonly body?: ExtraErrorFields;
  /** Response headers, e.g. Retry-After. */
  readonly headers?: Record<string, string>;
  readonly cause?: unknown;
}

export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  /** The answer's body: the one place an error body is made. */
  readonly body: ErrorBody & Readonly<Record<string, unknown>>;
  readonly headers: Record<string, string>;

  constructor(name: ErrorName, options: GatewayErrorOptions = {}) {
    const entry = ERRORS[name];
    super(options.message ?? entry.message, { cause: options.cause });
    this.name = 'GatewayError';
    this.code = errorCode(name);
    this.statusCode = entry.status;
    // Extras first: nothing can replace the fields every body has.
    this.body = { ...options.body, success: false, error: this.message, code: this.code };
    this.headers = options.headers ?? {};
  }
}
