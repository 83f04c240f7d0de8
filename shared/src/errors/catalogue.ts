/**
 * The one catalogue of client-visible errors: a stable code, the HTTP status and the contract's
 * exact message. Handlers throw `GatewayError`s built from it; one error handler renders them as
 * `{success:false, error}`. Branch on `code`, never on message text.
 */
export const ERRORS = {
  // 400
  MISSING_APP_ID: { status: 400, message: 'Missing X-App-ID header' },
  INVALID_APP_ID: { status: 400, message: 'Invalid X-App-ID format' },
  INVALID_BODY: { status: 400, message: 'Invalid request body' },
  INVALID_COMMAND: { status: 400, message: 'Invalid command' },
  URLS_REQUIRED: { status: 400, message: 'urls is required' },
  INVALID_COMMAND_UID: { status: 400, message: 'Invalid command_uid format' },
  VALIDATION_FAILED: { status: 400, message: 'Invalid request' },
  INVALID_CURSOR: { status: 400, message: 'Invalid cursor' },
  INVALID_LIMIT: { status: 400, message: 'Invalid limit' },
  INVALID_WEBHOOK_URL: { status: 400, message: 'Invalid webhook_url' },
  // HTTP-level faults the framework or node's parser finds before any route runs.
  BAD_REQUEST: { status: 400, message: 'Bad request' },
  MALFORMED_REQUEST: { status: 400, message: 'Malformed HTTP request' },
  INVALID_URL: { status: 400, message: 'Invalid URL: malformed percent-encoding' },
  // 401
  MISSING_API_KEY: { status: 401, message: 'Missing API key' },
  INVALID_API_KEY: { status: 401, message: 'Invalid API key' },
  MISSING_ADMIN_KEY: { status: 401, message: 'Missing X-Admin-API-Key header' },
  INVALID_ADMIN_KEY: { status: 401, message: 'Invalid admin API key' },
  // 403
  SESSION_FORBIDDEN: { status: 403, message: 'Session belongs to a different application' },
  ROOM_FORBIDDEN: { status: 403, message: 'Room belongs to a different application' },
  CID_NOT_ALLOWED: { status: 403, message: 'from is not on the caller-ID allow-list' },
  // 404
  ROUTE_NOT_FOUND: { status: 404, message: 'Route not found' },
  SESSION_NOT_FOUND: { status: 404, message: 'Session not found' },
  ROOM_NOT_FOUND: { status: 404, message: 'Room not found' },
  NOT_IN_CONFERENCE: { status: 404, message: 'Session is not in a conference' },
  DIAL_NOT_FOUND: { status: 404, message: 'Dial not found' },
  APP_NOT_FOUND: { status: 404, message: 'App not found' },
  CID_NOT_FOUND: { status: 404, message: 'Caller ID not found' },
  DID_NOT_FOUND: { status: 404, message: 'DID not found' },
  RECORDING_NOT_FOUND: { status: 404, message: 'Recording not found' },
  // 409
  CONFERENCE_NAME_TAKEN: { status: 409, message: 'Conference name already taken' },
  IN_DIFFERENT_ROOM: {
    status: 409,
    message: 'Session is already in a different conference room; use conference/leave first',
  },
  ALREADY_MUTED: { status: 409, message: 'Member is already muted' },
  ALREADY_UNMUTED: { status: 409, message: 'Member is already unmuted' },
  STILL_JOINING: { status: 409, message: 'Member is still joining the conference' },
  STILL_LEAVING: { status: 409, message: 'Member is leaving the conference' },
  DID_TAKEN: { status: 409, message: 'DID is already routed to another application' },
  WEBHOOKS_OFF: {
    status: 409,
    message: 'Webhooks are disabled for this application (empty webhook_url)',
  },
  APP_DISABLED: {
    status: 409,
    message: 'Application is disabled; POST its configuration to re-enable it',
  },
  // 408, 413, 414, 415, 422, 429, 431
  REQUEST_TIMEOUT: { status: 408, message: 'Request timeout' },
  BODY_TOO_LARGE: { status: 413, message: 'Request body too large' },
  PARAM_TOO_LONG: { status: 414, message: 'Path parameter too long' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Content-Type must be application/json' },
  COMMAND_UID_REUSED: {
    status: 422,
    message: 'command_uid was already used on this session for a different command or body',
  },
  RATE_LIMITED: { status: 429, message: 'Rate limit exceeded' },
  COMMAND_RATE_LIMITED: { status: 429, message: 'Command rate limited' },
  HEADERS_TOO_LARGE: { status: 431, message: 'Request headers too large' },
  // 5xx
  AUTH_BACKEND_FAILED: { status: 500, message: 'Internal error validating API key' },
  INTERNAL: { status: 500, message: 'Internal server error' },
  DIAL_FAILED: { status: 500, message: 'Internal error placing the dial' },
  ADMIN_STORE_FAILED: { status: 500, message: 'Failed to access the configuration store' },
  ADMIN_NOT_CONFIGURED: { status: 503, message: 'Admin API not configured' },
  CONFIG_STORE_UNAVAILABLE: { status: 503, message: 'Configuration store unavailable' },
  RECORDING_UNAVAILABLE: { status: 503, message: 'Recording not available' },
  NO_FS_CAPACITY: { status: 503, message: 'No outbound capacity; retry with backoff' },
  NO_MEDIA_NODE: { status: 503, message: 'No media node available; retry with backoff' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** Machine-readable codes the contract puts in the body (dial): `{success:false, error, code}`. */
const BODY_CODES: Partial<Record<ErrorCode, string>> = {
  CID_NOT_ALLOWED: 'cid_not_allowed',
  NO_FS_CAPACITY: 'no_fs_capacity',
};

export interface GatewayErrorOptions {
  /** Replaces the catalogue message (validation failures say what was wrong). */
  readonly message?: string;
  /** Extra body fields, e.g. `detail.room_id` of a taken conference name. */
  readonly body?: Record<string, unknown>;
  /** Response headers, e.g. Retry-After. */
  readonly headers?: Record<string, string>;
  readonly cause?: unknown;
}

export class GatewayError extends Error {
  readonly statusCode: number;
  readonly body: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    options: GatewayErrorOptions = {},
  ) {
    const entry = ERRORS[code];
    super(options.message ?? entry.message, { cause: options.cause });
    this.name = 'GatewayError';
    this.statusCode = entry.status;
    const bodyCode = BODY_CODES[code];
    this.body = { ...(bodyCode ? { code: bodyCode } : {}), ...options.body };
    this.headers = options.headers ?? {};
  }
}
