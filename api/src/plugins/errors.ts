import { GatewayError } from '@voicegw/shared';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { validationError } from './validation-messages.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Called for every 5xx answered; the recent-errors plugin records them. */
    onServerError?: (request: FastifyRequest, status: number, error: Error) => void;
  }
}

/** Fastify's own errors, mapped onto the catalogue so every client sees the contract's messages. */
function fromFastify(error: FastifyError): GatewayError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new GatewayError('BODY_TOO_LARGE');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new GatewayError('UNSUPPORTED_MEDIA_TYPE');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new GatewayError('INVALID_BODY');
    default:
      break;
  }
  if (error.validation) return validationError(error.validation, error.validationContext);
  if (error.statusCode === 400 && error instanceof SyntaxError)
    return new GatewayError('INVALID_BODY');
  return undefined;
}

function toGatewayError(error: FastifyError | Error): GatewayError {
  if (error instanceof GatewayError) return error;
  return fromFastify(error as FastifyError) ?? new GatewayError('INTERNAL', { cause: error });
}

/**
 * One error handler for the whole api: every error body is `{success:false, error}` (plus the
 * catalogue's extra fields), and no stack trace or internal message reaches a client.
 */
export default fp(
  async (app) => {
    app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const gatewayError = toGatewayError(error);
      const status = gatewayError.statusCode;
      if (status >= 500) {
        request.log.error({ err: error }, 'request failed');
        app.onServerError?.(request, status, error);
      }
      if (gatewayError.code === 'RECORDING_NOT_FOUND') {
        // Expired recordings: 404 with no structured body, as the contract says.
        return reply.code(404).send();
      }
      return reply
        .code(status)
        .headers(gatewayError.headers)
        .send({ success: false, error: gatewayError.message, ...gatewayError.body });
    });

    app.setNotFoundHandler((_request, reply) =>
      reply.code(404).send({ success: false, error: 'Route not found' }),
    );
  },
  { name: 'errors' },
);
