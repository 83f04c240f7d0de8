import {
  failedResult,
  hopTrace,
  type CommandMessage,
  type SessionCommandMessage,
  type SessionCommandName,
} from '@voicegw/shared';
import { executeMemberCommand } from '../conference/member-message.js';
import { publishStreamEnd, unstartedStream } from '../media-stream/stream-end.js';
import type { NodeWithSessions } from '../session/registry.js';
import { answer } from './answer.js';
import { bridge } from './bridge.js';
import { conferenceJoin } from './conference-join.js';
import { conferenceLeave } from './conference-leave.js';
import { conferenceMute, conferenceUnmute } from './conference-mute.js';
import { dial } from './dial.js';
import { disconnect } from './disconnect.js';
import { hangup } from './hangup.js';
import { playAndGetDigits } from './play-and-get-digits.js';
import { playbackPause, playbackResume } from './playback-pause.js';
import { playbackRestart } from './playback-restart.js';
import { playbackSeek } from './playback-seek.js';
import { playbackSilence } from './playback-silence.js';
import { playbackStart } from './playback-start.js';
import { playbackStop } from './playback-stop.js';
import { recordStart } from './record-start.js';
import { recordStop } from './record-stop.js';
import { unbridge } from './unbridge.js';
import { publishResult } from './result.js';
import { streamStart } from './stream-start.js';
import { streamStop } from './stream-stop.js';
import { transfer } from './transfer.js';
import { commandContext, type SessionCommand } from './types.js';

type Registry = { readonly [C in SessionCommandName]: SessionCommand<C> };

/** The session commands this node executes, by name. */
export const SESSION_COMMANDS: Registry = {
  answer,
  hangup,
  disconnect,
  'playback/start': playbackStart,
  'playback/stop': playbackStop,
  'playback/pause': playbackPause,
  'playback/resume': playbackResume,
  'playback/seek': playbackSeek,
  'playback/restart': playbackRestart,
  'playback/silence': playbackSilence,
  play_and_get_digits: playAndGetDigits,
  'record/start': recordStart,
  'record/stop': recordStop,
  'conference/join': conferenceJoin,
  'conference/leave': conferenceLeave,
  'conference/mute': conferenceMute,
  'conference/unmute': conferenceUnmute,
  'stream/start': streamStart,
  'stream/stop': streamStop,
  bridge,
  unbridge,
  transfer,
};

/**
 * Executes one message of the command stream; resolves when it is done (deferred commands:
 * confirmed or timed out), which is when the consumer acknowledges it.
 */
/** True when the command's result script acknowledged its stream entry (session commands). */
export async function executeCommand(
  node: NodeWithSessions,
  message: CommandMessage,
  entryId: string,
): Promise<boolean> {
  switch (message.kind) {
    case 'dial':
      await dial(node, message);
      return false;
    case 'session':
      return sessionCommand(node, message, entryId);
    case 'room':
      await node.rooms.execute(message);
      return false;
    case 'member':
      await executeMemberCommand(node, message);
      return false;
  }
}

async function sessionCommand(
  node: NodeWithSessions,
  message: SessionCommandMessage,
  entryId: string,
): Promise<boolean> {
  hopTrace.mark(message.operation_id, 'node.read');
  const session = node.sessions.get(message.session_id);
  if (!session) {
    // The session ended (or its channel vanished) after the api accepted the command.
    node.metrics.commands.inc({ command: message.command, outcome: 'unknown_session' });
    const failed = unstartedStream(message, 'Session not found');
    if (failed) await publishStreamEnd(node, message.app_id, failed);
    await publishResult(node, entryId, message.app_id, failedResult(message, 'Session not found'));
    return true;
  }
  // Every command this node knows has a handler; an api newer than the node may send others.
  const handler: SessionCommand | undefined = SESSION_COMMANDS[message.command];
  const ctx = commandContext(node, session, message, entryId);
  if (!handler) {
    await session.serial(() => ctx.result(false, 'Command not supported by this media node'));
    return ctx.answered;
  }
  session.log.debug({ command: message.command, command_uid: message.command_uid }, 'command');
  const pending = await session.serial(() => {
    hopTrace.mark(message.operation_id, 'node.started');
    return handler.start(ctx);
  });
  hopTrace.mark(message.operation_id, 'node.accepted');
  if (pending) await pending.confirmed;
  return ctx.answered;
}
