import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { GatewayError, type ErrorName } from '../errors/catalogue.js';
import { ErrorCodeSchema } from '../errors/schema.js';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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
      return new GatewayError('UNSUPPORTED_MEDIA_TYPE');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new GatewayError('BODY_LENGTH_MISMATCH');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new GatewayError('INVALID_BODY');
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_INVALID_URL':
      return new GatewayError('INVALID_URL');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new GatewayError('PARAM_TOO_LONG');
    default:
      break;
  }
  if (error.validation) return validationError(error.validation, error.validationContext);
  if (error.statusCode === 400 && error instanceof SyntaxError)
    return new GatewayError('INVALID_BODY');
  // Any other client error the framework or a library reading the request raises stays a 4xx.
  const status = error.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new GatewayError(CLIENT_STATUSES[status] ?? 'BAD_REQUEST', { cause: error });
  }
  return undefined;
}

/** A framework 4xx the cases above do not name, by its status. */
const CLIENT_STATUSES: Partial<Record<number, ErrorName>> = {
  404: 'ROUTE_NOT_FOUND',
  408: 'REQUEST_TIMEOUT',
  413: 'BODY_TOO_LARGE',
  414: 'PARAM_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  431: 'HEADERS_TOO_LARGE',
};

function toGatewayError(error: FastifyError | Error): GatewayError {
  if (error instanceof GatewayError) return error;
  return fromFastify(error as FastifyError) ?? new GatewayError('INTERNAL', { cause: error });
}

function sendError(reply: FastifyReply, error: GatewayError): FastifyReply {
  if (error.code === 'recording_not_found') {
    // Expired recordings: 404 with no structured body, as the contract says.
    return reply.code(404).send();
  }
  // Serialized here, not by the route's response schema: the body is exactly the error's, even
  // where the route documents another body for that status (/health's 503).
  return reply
    .code(error.statusCode)
    .headers(error.headers)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(error.body));
}

/**
 * Fastify's `frameworkErrors`: the router's own refusals (bad %-encoding, a path parameter over
 * `maxParamLength`), which answer before any hook or handler runs.
 */
export function frameworkErrors(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  reply.header('x-request-id', request.id);
  sendError(reply, toGatewayError(error));
}

/** node's parser errors (`clientError`) that have an answer of their own; others are 400. */
const PARSER_ERRORS: Partial<Record<string, ErrorName>> = {
  HPE_HEADER_OVERFLOW: 'HEADERS_TOO_LARGE',
  ERR_HTTP_REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
  ERR_HTTP_REQUEST_HEADERS_TIMEOUT: 'REQUEST_TIMEOUT',
};

/**
 * Fastify's `clientErrorHandler`: node's HTTP parser refuses a request (headers too large, not
 * HTTP, a timeout) before fastify sees it. Answers in the contract's shape and closes the
 * connection, as node would, unless a response on it has already begun.
 */
export function clientErrorHandler(
  this: FastifyInstance,
  error: NodeJS.ErrnoException,
  socket: Socket,
): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const refusal = new GatewayError(PARSER_ERRORS[error.code ?? ''] ?? 'MALFORMED_REQUEST');
    const status = refusal.statusCode;
    const body = JSON.stringify(refusal.body);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json; ` +
        `charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close` +
        `\r\n\r\n${body}`,
    );
  }
  this.log.debug({ err: error }, 'client error');
  socket.destroy(error);
}

/**
 * One error handler for the whole api: every error body is `{success:false, error, code}` (plus
 * the catalogue's extra fields), and no stack trace or internal message reaches a client.
 */
export default fp(
  async (app) => {
    // Before any route: their error response schemas refer to it.
    app.addSchema(ErrorCodeSchema);

    // Requests that arrive while the api closes are refused before any other work, as fastify's
    // return503OnClosing would, but in the contract's shape (app.ts turns fastify's off). A
    // refusal, not a failure: it bypasses the error handler's log and recent errors.
    let closing = false;
    app.addHook('preClose', (done) => {
      closing = true;
      done();
    });
    app.addHook('onRequest', (_request, reply, done) => {
      if (closing) sendError(reply, new GatewayError('SHUTTING_DOWN'));
      else done();
    });

    app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const gatewayError = toGatewayError(error);
      const status = gatewayError.statusCode;
      if (status >= 500) {
        request.log.error({ err: error }, 'request failed');
        app.onServerError?.(request, status, error);
      }
      return sendError(reply, gatewayError);
    });

    app.setNotFoundHandler((_request, reply) =>
      sendError(reply, new GatewayError('ROUTE_NOT_FOUND')),
    );
  },
  { name: 'errors' },
);
