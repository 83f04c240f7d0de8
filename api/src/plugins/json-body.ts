import { GatewayError } from '@voicegw/shared';
import fp from 'fastify-plugin';
import secureJson from 'secure-json-parse';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * `required`: the route needs a JSON body and Content-Type: application/json.
     * `optional`: a body is optional (hangup's cause); when one is sent it must be JSON.
     * Unset: no body is expected (bodyless actions need no Content-Type).
     */
    body?: 'required' | 'optional';
  }
}

const isJson = (contentType: string | undefined): boolean =>
  contentType !== undefined && /^application\/json\s*(;|$)/i.test(contentType);

/**
 * JSON bodies as the contract wants them: charset parameters accepted, an empty body allowed on
 * bodyless actions even when a client sends the JSON content type anyway, prototype poisoning
 * refused, and the contract's 400/415 messages.
 */
export default fp(
  async (app) => {
    // JSON is the only body the api takes: without fastify's text/plain parser, any other
    // content type is refused with 415 on every route, bodyless or not.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
      const text = (body as string).trim();
      if (text === '') return done(null, undefined);
      try {
        done(
          null,
          secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }),
        );
      } catch (cause) {
        done(new GatewayError('INVALID_BODY', { cause }), undefined);
      }
    });

    app.addHook('preValidation', (request, _reply, done) => {
      const mode = request.routeOptions.config.body;
      if (mode !== 'required') {
        // A bodyless call validates as an empty object, so schema defaults still apply.
        if (request.body === undefined && mode === 'optional') request.body = {};
        done();
      } else if (!isJson(request.headers['content-type'])) {
        done(new GatewayError('UNSUPPORTED_MEDIA_TYPE'));
      } else if (request.body === undefined) {
        done(new GatewayError('INVALID_BODY'));
      } else {
        done();
      }
    });
  },
  { name: 'json-body' },
);
