import { randomUUID } from 'node:crypto';
import {
  parseSessionId,
  recordHangup,
  type DialArgs,
  type DialCommandMessage,
} from '@voicegw/shared';
import type { NodeContext } from '../context.js';
import type { FsEvent } from '../esl/event.js';
import { mapHangupCause } from '../session/causes.js';
import { Channel } from '../session/channel.js';
import type { NodeWithSessions } from '../session/registry.js';
import { watchSession } from '../session/lifecycle.js';
import { Session } from '../session/session.js';
import { countHangup, endSession } from '../session/teardown.js';

/**
 * dial: `bgapi originate {origination_uuid=<uuid of the session id>,...}<dial string> &park()`.
 * session.dialing at once; the channel's own events then report progress (lifecycle.ts); an
 * originate that fails with no channel at all (`-ERR <CAUSE>` in BACKGROUND_JOB) ends the session
 * with the mapped cause and duration 0.
 */
export const dialCommand = {
  esl: 'bgapi originate {origination_uuid,origination_caller_id_number,originate_timeout,voicegw_app_id}<DIAL_STRING_TEMPLATE> &park()',
  confirmedBy:
    'BACKGROUND_JOB (+OK <uuid> or -ERR <CAUSE>); CHANNEL_PROGRESS(_MEDIA), CHANNEL_ANSWER',
} as const;

export async function dial(node: NodeWithSessions, message: DialCommandMessage): Promise<void> {
  await placeCall(node, {
    sessionId: message.session_id,
    appId: message.app_id,
    args: message.args,
  });
}

/** An outbound call to place: a dial's, or a transfer's new leg (with the session it is for). */
export interface OutboundCall {
  readonly sessionId: string;
  readonly appId: string;
  readonly args: DialArgs;
  readonly parentSessionId?: string;
}

/**
 * Places an outbound call as its session (created in Redis by the api): session.dialing, then
 * the originate. Resolves with the session once the originate is sent (or has failed, the
 * session ended), undefined when there is nothing to place (another node's session, one already
 * running or ended).
 */
export async function placeCall(
  node: NodeWithSessions,
  call: OutboundCall,
): Promise<Session | undefined> {
  const parsed = parseSessionId(call.sessionId);
  if (parsed?.prefix !== node.prefix) {
    node.log.warn({ session_uuid: call.sessionId }, 'dial for a session of another node');
    return undefined;
  }
  if (node.sessions.get(call.sessionId)) return undefined; // already running (claimed twice)
  const { keys } = node;
  if ((await node.redis.hexists(keys.session(call.sessionId), 'ended_at')) === 1) return undefined;

  const { args } = call;
  const channel = new Channel(parsed.channelUuid, node.esl, node.router);
  const session = new Session(node, channel, {
    id: call.sessionId,
    appId: call.appId,
    direction: 'outbound',
    callerId: args.from,
    did: args.to,
    metadata: args.metadata,
    maxDurationSec: args.max_duration_sec,
    parentSessionId: call.parentSessionId,
  });
  channel.attach();
  node.sessions.add(session);
  watchSession(session);
  await node.redis.sadd(keys.nodeSessions(node.prefix), session.id);

  await session.serial(async () => {
    await session.publish({
      event: 'session.dialing',
      session_uuid: session.id,
      to: args.to,
      from: args.from,
      ...session.parent,
    });
    const jobUuid = randomUUID();
    const deadline = Date.now() + args.timeout_sec * 1000;
    node.router.expectJob(jobUuid, (event) =>
      session.enqueue(() => jobDone(session, event, deadline)),
    );
    // The job's event is lost with the event socket that carried it: the session's end is the
    // handler's end, whatever came of the job.
    channel.once('gone', () => node.router.forgetJob(jobUuid));
    try {
      const reply = await node.esl.bgapi(`originate ${originateArgs(node, call)}`, jobUuid);
      if (!reply.startsWith('+OK')) throw new Error(reply);
      session.log.info({ to: args.to }, 'dialing');
    } catch (err) {
      node.router.forgetJob(jobUuid);
      session.log.warn({ err }, 'originate not accepted');
      await endSession(session, 'failed', 0);
    }
  });
  return session;
}

/**
 * A dial read after its deadline places no call: its session ends as a dial that failed does,
 * with one call.hangup (failed, duration 0) and no session.dialing.
 */
export async function answerExpiredDial(
  node: NodeWithSessions,
  message: DialCommandMessage,
): Promise<void> {
  if (parseSessionId(message.session_id)?.prefix !== node.prefix) return;
  if (node.sessions.get(message.session_id)) return; // already running (claimed twice)
  const published = await recordHangup(node, {
    sessionId: message.session_id,
    owner: node.prefix,
    appId: message.app_id,
    direction: 'outbound',
    metadata: message.args.metadata,
    cause: 'failed',
    durationSeconds: 0,
    reason: 'hangup',
  });
  if (published) countHangup(node, 'failed', false);
}

function originateArgs(node: NodeContext, call: OutboundCall): string {
  const { args } = call;
  const uuid = parseSessionId(call.sessionId)?.channelUuid ?? '';
  const vars = [
    `origination_uuid=${uuid}`,
    `origination_caller_id_number=${args.from}`,
    `originate_timeout=${args.timeout_sec}`,
    `voicegw_app_id=${call.appId}`,
  ];
  const target = node.config.DIAL_STRING_TEMPLATE.replaceAll('{to}', args.to);
  return `{${vars.join(',')}}${target} &park()`;
}

/**
 * BACKGROUND_JOB of the originate: `-ERR <CAUSE>` when no call came of it. `+OK` comes at the
 * answer or, with early media, already at the 183; from then on originate_timeout no longer
 * applies, so the node keeps timeout_sec itself.
 */
async function jobDone(session: Session, event: FsEvent, deadline: number): Promise<void> {
  const body = event.body.trim();
  if (session.ended) return;
  if (body.startsWith('+OK')) {
    ringTimeout(session, deadline);
    return;
  }
  const cause = /^-ERR\s+([A-Z_]+)/.exec(body)?.[1];
  session.log.info({ result: body }, 'originate failed');
  await endSession(session, mapHangupCause(cause, false), 0);
}

/** Hangs up with NO_ANSWER at `deadline` a call still unanswered (ringing in early media). */
function ringTimeout(session: Session, deadline: number): void {
  const { channel } = session;
  if (channel.answered) return;
  const settled = (event: FsEvent): void => {
    if (event.name !== 'CHANNEL_ANSWER' && event.name !== 'CHANNEL_HANGUP') return;
    clearTimeout(timer);
    channel.off('event', settled);
  };
  const timer = setTimeout(
    () => {
      channel.off('event', settled);
      if (channel.answered || session.ended) return;
      session.log.info('not answered within timeout_sec (early media)');
      channel.api(`uuid_kill ${channel.uuid} NO_ANSWER`).catch((err: unknown) => {
        session.log.debug({ err }, 'ring timeout: uuid_kill failed');
      });
    },
    Math.max(0, deadline - Date.now()),
  );
  channel.on('event', settled);
}
