import { background, lua, type DialStatus } from '@voicegw/shared';
import type { FsEvent } from '../esl/event.js';
import { mapHangupCause } from './causes.js';
import type { Session } from './session.js';
import { endSession } from './teardown.js';

/**
 * The system events of a session, from its channel's FreeSWITCH events: call.answered when the
 * channel is answered by itself, dtmf for every key pressed, dial progress (session.ringing / session.early_media and the
 * dial status), max_duration_sec, and call.hangup on CHANNEL_HANGUP_COMPLETE. Each reaction is
 * queued on the session at the moment its event arrives, so events keep FreeSWITCH's order.
 */
export function watchSession(session: Session): void {
  const { channel } = session;
  channel.on('event', (event: FsEvent) => {
    switch (event.name) {
      case 'CHANNEL_PROGRESS':
        if (session.direction !== 'outbound' || session.reported.ringing || channel.answered)
          return;
        session.reported.ringing = true;
        session.enqueue(() => progress(session, 'session.ringing', 'ringing'));
        return;
      case 'CHANNEL_PROGRESS_MEDIA':
        if (session.direction !== 'outbound' || session.reported.earlyMedia || channel.answered)
          return;
        session.reported.earlyMedia = true;
        session.enqueue(() => progress(session, 'session.early_media', 'early_media'));
        return;
      case 'CHANNEL_ANSWER': {
        // An answer command in flight reports this answer itself, with its command_uid.
        const byCommand = session.answerCommands > 0;
        session.enqueue(() => answered(session, byCommand));
        return;
      }
      case 'DTMF': {
        // DTMF-Duration is in samples at 8 kHz (2000 = 250 ms).
        const payload = {
          event: 'dtmf' as const,
          session_uuid: session.id,
          digit: event.header('DTMF-Digit') ?? '',
          duration_ms: Math.round(Number(event.header('DTMF-Duration') ?? 0) / 8) || 0,
        };
        session.enqueue(() => session.publish(payload));
        return;
      }
      case 'CHANNEL_HANGUP_COMPLETE': {
        const cause = mapHangupCause(event.header('Hangup-Cause'), channel.answered);
        const duration = billedSeconds(event, channel.answeredAt);
        session.enqueue(() => endSession(session, cause, duration));
        return;
      }
    }
  });
}

/** The session hash's dial status, unless the session ended meanwhile. */
export async function setDialStatus(
  session: Session,
  status: DialStatus,
  ...fields: string[]
): Promise<void> {
  if (session.direction !== 'outbound') return;
  await updateSession(session, 'dial_status', status, ...fields);
}

async function updateSession(session: Session, ...fields: string[]): Promise<void> {
  const { node } = session;
  await node.scripts.run(lua.updateSession({ session: node.keys.session(session.id) }, { fields }));
}

async function progress(
  session: Session,
  event: 'session.ringing' | 'session.early_media',
  status: DialStatus,
): Promise<void> {
  if (session.ended) return;
  await session.publish({
    event,
    session_uuid: session.id,
    to: session.did,
    from: session.callerId,
    ...session.parent,
  });
  await setDialStatus(session, status);
}

async function answered(session: Session, byCommand: boolean): Promise<void> {
  if (session.ended) return;
  const answeredAt = String(session.channel.answeredAt ?? Date.now());
  if (session.direction !== 'outbound') {
    if (byCommand) {
      // The answer command reports this answer next in the queue; its events follow this write
      // on the same connection, so Redis takes them in order without their waiting for its reply.
      background(updateSession(session, 'answered_at', answeredAt), session.log, 'answered_at');
      return;
    }
    await session.publish({ event: 'call.answered', session_uuid: session.id });
    await updateSession(session, 'answered_at', answeredAt);
    return;
  }
  if (!byCommand)
    await session.publish({ event: 'call.answered', session_uuid: session.id, ...session.parent });
  await setDialStatus(session, 'answered', 'answered_at', answeredAt);
  if (session.maxDurationSec) {
    const reply = await session.channel.api(
      `sched_hangup +${session.maxDurationSec} ${session.channel.uuid} ALLOTTED_TIMEOUT`,
    );
    if (!reply.startsWith('+OK')) session.log.warn({ reply }, 'sched_hangup refused');
  }
}

/** Seconds the call was answered: FreeSWITCH's billsec, else our own clock. */
function billedSeconds(event: FsEvent, answeredAt: number | undefined): number {
  const billsec = Number(event.variable('billsec'));
  if (Number.isFinite(billsec) && event.variable('billsec') !== undefined) return billsec;
  return answeredAt === undefined ? 0 : Math.floor((Date.now() - answeredAt) / 1000);
}
