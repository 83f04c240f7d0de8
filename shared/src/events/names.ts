/**
 * Every event name: the 24 of the API contract, in its order, then the media-stream events and
 * those of connected calls.
 */
export const EVENT_NAMES = [
  'call.new',
  'call.answered',
  'call.hangup',
  'dtmf',
  'command.result',
  'playback.started',
  'playback.stopped',
  'playback.file_not_found',
  'digits.collected',
  'recording.completed',
  'session.dialing',
  'session.ringing',
  'session.early_media',
  'conference.created',
  'conference.destroyed',
  'conference.play.started',
  'conference.play.finished',
  'conference.play.paused',
  'conference.play.stopped',
  'conference.play.volume_changed',
  'conference.member.joined',
  'conference.member.left',
  'conference.member.muted',
  'conference.member.unmuted',
  'stream.started',
  'stream.stopped',
  'stream.failed',
  'call.bridged',
  'call.unbridged',
] as const;

export type EventName = (typeof EVENT_NAMES)[number];

const NAMES: ReadonlySet<string> = new Set(EVENT_NAMES);

export function isEventName(name: string): name is EventName {
  return NAMES.has(name);
}
