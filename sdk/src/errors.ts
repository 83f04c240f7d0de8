/**
 * Every failure the gateway answers (any non-2xx), and a request that could not be sent or read:
 * the HTTP status and the contract's `error` message, plus the dial's `code` (`cid_not_allowed`,
 * `no_fs_capacity`) and the whole body when there is one. Branch on `status` (and `code`), not on
 * the message text.
 */
export class VoiceGatewayError extends Error {
  override readonly name = 'VoiceGatewayError';

  constructor(
    /** HTTP status; 0 when no answer arrived (network failure, timeout). */
    readonly status: number,
    /** The contract's `error` message, or the status text when the body had none. */
    readonly error: string,
    /** The parsed error body, when it was JSON. */
    readonly body: Readonly<Record<string, unknown>> | undefined,
    /** Request that failed, e.g. `POST /api/v1/dial`. */
    readonly request: string,
    options?: { cause?: unknown },
  ) {
    super(`${request}: ${status} ${error}`, options);
  }

  /** The machine-readable `code` of the body, where the contract gives one (dial). */
  get code(): string | undefined {
    const code = this.body?.code;
    return typeof code === 'string' ? code : undefined;
  }
}
