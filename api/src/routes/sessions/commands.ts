import {
  SESSION_COMMAND_NAMES,
  SessionCommandBodies,
  type SessionCommandArgs,
  type SessionCommandName,
} from '@voicegw/shared';
import { GatewayError } from '../../errors/catalogue.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DeferredReply, MembershipReply, TransferReply } from '../../domain/command-replies.js';
import { SessionCommands } from '../../domain/session-commands.js';
import { ErrorBody, errorBody } from '../../errors/schema.js';
import { COMMAND_ERRORS } from './command-errors.js';

/** Session command route: body limit 64 KiB. */
export const COMMAND_BODY_LIMIT = 64 * 1024;

const Params = Type.Object({ uuid: Type.String({ description: 'Session identifier' }) });

const UidReused = errorBody(
  {},
  'The command_uid was already used on this session for a different command or body ' +
    '(within COMMAND_UID_TTL_SEC). A repeat of the same command and body answers its ' +
    'original response instead.',
);

/** Commands whose body must be sent (with Content-Type: application/json). */
const REQUIRES_BODY: ReadonlySet<SessionCommandName> = new Set([
  'playback/start',
  'playback/seek',
  'play_and_get_digits',
  'conference/join',
  'stream/start',
  'bridge',
  'transfer',
]);

/** What each command answers on success. */
const replies = (command: SessionCommandName) =>
  command.startsWith('conference/')
    ? { 200: MembershipReply, 202: MembershipReply }
    : command === 'transfer'
      ? { 202: TransferReply }
      : { 202: DeferredReply };

/**
 * `POST /sessions/{uuid}/commands/{command}`: one route per command so that each has its own
 * schema (and OpenAPI entry); anything else under /commands answers 400 `Invalid command`.
 */
const commandRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const commands = new SessionCommands(app);
  for (const command of SESSION_COMMAND_NAMES) {
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
          body: SessionCommandBodies[command],
          response: {
            ...replies(command),
            ...COMMAND_ERRORS[command],
            422: UidReused,
            '4xx': ErrorBody,
            '5xx': ErrorBody,
          },
        },
      },
      async (request, reply) => {
        // A bodyless command was validated as {} (the json-body plugin): the body is always here.
        const { body } = request;
        checkCrossFieldRules(command, body);
        const outcome = await commands.submit(request, request.params.uuid, command, body);
        return reply.code(outcome.status).send(outcome.body);
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

/** Cross-field rules a JSON schema cannot state, by command. */
const CROSS_FIELD_RULES: {
  readonly [C in SessionCommandName]?: (body: SessionCommandArgs<C>) => void;
} = {
  'playback/start': checkPlaybackRules,
  play_and_get_digits: checkDigitsRules,
};

/** Generic over the command, so that its rules take that command's body. */
function checkCrossFieldRules<C extends SessionCommandName>(
  command: C,
  body: SessionCommandArgs<C>,
): void {
  CROSS_FIELD_RULES[command]?.(body);
}

export default commandRoutes;
