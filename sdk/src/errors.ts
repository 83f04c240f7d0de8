import type { ErrorCode } from './contract.js';

/**
 * Every failure the gateway answers (any non-2xx), and a request that could not be sent or read:
 * the HTTP status, the error's stable `code` and the contract's `error` message, and the whole
 * body when there is one. Branch on `code`, never on the message text.
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

  /**
   * The body's stable `code` (docs/errors.md lists them), e.g. `cid_not_allowed`; undefined when
   * no gateway error body arrived: no answer, an expired recording's bare 404, a proxy's page.
   * A gateway newer than this SDK may answer codes added since.
   */
  get code(): ErrorCode | undefined {
    const code = this.body?.code;
    return typeof code === 'string' ? (code as ErrorCode) : undefined;
  }
}
