import { failureCode, scriptCodeName, type ScriptCodeName, type ScriptName } from '@voicegw/shared';
import { GatewayError, type ErrorName } from '../errors/catalogue.js';
import { rateLimited } from './rate-limited.js';

/** A script's negative reply: its code and the values after it, with what the caller knows. */
interface Failure {
  readonly values: readonly unknown[];
  readonly appId: string;
}

export const appNotFound = (appId: string): GatewayError =>
  new GatewayError('APP_NOT_FOUND', { body: { app_id: appId } });

export const conferenceNameTaken = (existing: string): GatewayError =>
  new GatewayError('CONFERENCE_NAME_TAKEN', { body: { detail: { room_id: existing } } });

/** The bridge refusals that can be about either session: the message and detail say which. */
const PEER_MESSAGES = {
  NOT_ANSWERED: 'The peer session is not answered',
  IN_CONFERENCE: 'The peer session is in a conference',
  ALREADY_BRIDGED: 'The peer session is already bridged',
} as const satisfies Partial<Record<ErrorName, string>>;

const eitherSession =
  (name: keyof typeof PEER_MESSAGES) =>
  ({ values }: Failure): GatewayError => {
    const peer = values[0] === 'peer';
    return new GatewayError(name, {
      ...(peer ? { message: PEER_MESSAGES[name] } : {}),
      body: { detail: { session: peer ? 'peer' : 'self' } },
    });
  };

/**
 * The catalogue error of each script result code the api answers with, whichever script
 * answered it (codes the callers act on themselves, like ROOM_MEMBERS_CHANGED, have none).
 */
const CATALOGUE: { readonly [C in ScriptCodeName]?: ErrorName | ((f: Failure) => GatewayError) } = {
  RATE_LIMITED: ({ values }) => rateLimited('RATE_LIMITED', Number(values[0])),
  SESSION_NOT_FOUND: 'SESSION_NOT_FOUND',
  SESSION_OF_ANOTHER_APP: 'SESSION_FORBIDDEN',
  COOLDOWN: ({ values }) => rateLimited('COMMAND_RATE_LIMITED', Number(values[0])),
  ROOM_NOT_FOUND: 'ROOM_NOT_FOUND',
  ROOM_OF_ANOTHER_APP: 'ROOM_FORBIDDEN',
  IN_DIFFERENT_ROOM: 'IN_DIFFERENT_ROOM',
  NOT_IN_CONFERENCE: 'NOT_IN_CONFERENCE',
  STILL_JOINING: 'STILL_JOINING',
  ALREADY_MUTED: 'ALREADY_MUTED',
  ALREADY_UNMUTED: 'ALREADY_UNMUTED',
  STILL_LEAVING: 'STILL_LEAVING',
  COMMAND_UID_REUSED: 'COMMAND_UID_REUSED',
  APP_NOT_FOUND: ({ appId }) => appNotFound(appId),
  DID_TAKEN: ({ values: [did, owner] }) =>
    new GatewayError('DID_TAKEN', { body: { detail: { did, app_id: owner } } }),
  DID_NOT_OF_APP: 'DID_NOT_FOUND',
  ROOM_NAME_TAKEN: ({ values }) => conferenceNameTaken(String(values[0])),
  CALLER_ID_NOT_ALLOWED: 'CID_NOT_ALLOWED',
  NODE_UNAVAILABLE: 'NO_FS_CAPACITY',
  SESSION_EXISTS: 'DIAL_FAILED',
  STREAM_ALREADY_RUNNING: 'STREAM_ALREADY_RUNNING',
  NO_STREAM: 'NO_STREAM',
  PEER_NOT_FOUND: 'PEER_NOT_FOUND',
  PEER_OF_ANOTHER_APP: 'PEER_FORBIDDEN',
  NOT_ANSWERED: eitherSession('NOT_ANSWERED'),
  IN_CONFERENCE: eitherSession('IN_CONFERENCE'),
  ALREADY_BRIDGED: eitherSession('ALREADY_BRIDGED'),
  NOT_BRIDGED: 'NOT_BRIDGED',
  BRIDGE_PENDING: 'BRIDGE_PENDING',
  BRIDGED: 'BRIDGED',
};

/**
 * The error the api answers for a script's negative reply (`code` or `[code, ...values]`): a
 * catalogue error, or a plain Error (a 500) for a code with no answer of its own.
 */
export function scriptError(script: ScriptName, reply: unknown, appId = ''): Error {
  const code = failureCode(reply);
  const name = code === undefined ? undefined : scriptCodeName(code);
  const answer = name && CATALOGUE[name];
  const values: unknown[] = Array.isArray(reply) ? reply.slice(1) : [];
  if (typeof answer === 'string') return new GatewayError(answer);
  if (answer) return answer({ values, appId });
  const shown = values.filter((value) => value !== null && value !== undefined);
  const detail = shown.length > 0 ? `: ${shown.map(String).join(' ')}` : '';
  return new Error(`${script} returned ${name ?? code ?? 'no code'}${detail}`);
}
