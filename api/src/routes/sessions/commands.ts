import {
  DEFERRED_TIMEOUT_MS,
  GatewayError,
  SESSION_COMMAND_NAMES,
  SessionCommandBodies,
  type SessionCommandArgs,
  type SessionCommandName,
} from '@voicegw/shared';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { SessionCommands } from '../../domain/session-commands.js';

/** Session command route: body limit 64 KiB. */
export const COMMAND_BODY_LIMIT = 64 * 1024;

const Params = Type.Object({ uuid: Type.String({ description: 'Session identifier' }) });

const Deferred = Type.Object({
  operation_id: Type.String({ format: 'uuid' }),
  status: Type.Literal('in_progress'),
  timeout_ms: Type.Integer({ const: DEFERRED_TIMEOUT_MS }),
});
const Membership = Type.Object({
  status: Type.Union([
    Type.Literal('joining'),
    Type.Literal('already_joined'),
    Type.Literal('leaving'),
    Type.Literal('muted'),
    Type.Literal('unmuted'),
  ]),
  room_id: Type.String(),
});
const ErrorBody = Type.Object({ success: Type.Literal(false), error: Type.String() });
/** What a command answers; the body of a repeated command_uid comes back from Redis as JSON. */
type CommandReply = Static<typeof Deferred> | Static<typeof Membership>;
const UidReused = Type.Object(
  { success: Type.Literal(false), error: Type.String() },
  {
    description:
      'The command_uid was already used on this session for a different command or body ' +
      '(within COMMAND_UID_TTL_SEC). A repeat of the same command and body answers its ' +
      'original response instead.',
  },
);

/** Commands whose body must be sent (with Content-Type: application/json). */
const REQUIRES_BODY: ReadonlySet<SessionCommandName> = new Set([
  'playback/start',
  'playback/seek',
  'play_and_get_digits',
  'conference/join',
]);

const isMembership = (command: SessionCommandName): boolean => command.startsWith('conference/');

/**
 * `POST /sessions/{uuid}/commands/{command}`: one route per command so that each has its own
 * schema (and OpenAPI entry); anything else under /commands answers 400 `Invalid command`.
 */
const commandRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const commands = new SessionCommands(app);
  for (const command of SESSION_COMMAND_NAMES) {
    const schema = SessionCommandBodies[command];
    app.post(
      `/:uuid/commands/${command}`,
      {
        bodyLimit: COMMAND_BODY_LIMIT,
        config: { body: REQUIRES_BODY.has(command) ? 'required' : 'optional', rateLimit: 'script' },
        schema: {
          tags: ['sessions'],
          summary: `Session command ${command}`,
          security: [{ appId: [], apiKey: [] }],
          params: Params,
          body: schema,
          response: {
            ...(isMembership(command) ? { 200: Membership, 202: Membership } : { 202: Deferred }),
            422: UidReused,
            '4xx': ErrorBody,
            '5xx': ErrorBody,
          },
        },
      },
      async (request, reply) => {
        const { uuid } = request.params;
        const body = request.body ?? {};
        if (command === 'play_and_get_digits')
          checkDigitsRules(body as SessionCommandArgs<'play_and_get_digits'>);
        if (command === 'playback/start')
          checkPlaybackRules(body as SessionCommandArgs<'playback/start'>);
        const outcome = await commands.submit(request, uuid, command, body);
        return reply.code(outcome.status).send(outcome.body as CommandReply);
      },
    );
  }

  app.post(
    '/:uuid/commands/*',
    { bodyLimit: COMMAND_BODY_LIMIT, schema: { hide: true } },
    async () => {
      throw new GatewayError('INVALID_COMMAND');
    },
  );
};

/** Cross-field rules a JSON schema cannot state. */
function checkPlaybackRules(body: SessionCommandArgs<'playback/start'>): void {
  if (body.offset_sec !== undefined && body.urls.length > 1) {
    throw new GatewayError('VALIDATION_FAILED', {
      message: 'offset_sec is not allowed with multiple URLs',
    });
  }
}

function checkDigitsRules(body: SessionCommandArgs<'play_and_get_digits'>): void {
  if (body.min_digits > body.max_digits) {
    throw new GatewayError('VALIDATION_FAILED', { message: 'min_digits must be <= max_digits' });
  }
  if (body.timeout * body.max_tries > 120_000) {
    throw new GatewayError('VALIDATION_FAILED', {
      message: 'timeout * max_tries must be <= 120000',
    });
  }
}

export default commandRoutes;
