import { GatewayError } from '../errors/catalogue.js';
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

/**
 * Nesting deeper than this is refused before parsing: nothing the api takes nests beyond a few
 * levels (dial `metadata` is free-form), and JSON.stringify, ajv and the media node all recurse.
 */
const MAX_DEPTH = 32;

/** True when brackets outside strings nest deeper than `max`; one pass, no allocation. */
function nestsDeeper(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
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
      if (nestsDeeper(text, MAX_DEPTH)) return done(new GatewayError('INVALID_BODY'), undefined);
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
