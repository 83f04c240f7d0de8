import type { SessionCommandName } from '@voicegw/shared';

/** A command cooldown group of the contract's Limits table; a second command inside it is 429. */
export interface CooldownGroup {
  readonly name: string;
  readonly ms: number;
}

const SEEK = { name: 'seek', ms: 100 } as const;
const PLAYBACK = { name: 'playback', ms: 500 } as const;
// record/stop is in the heavy group, as the recording reference says (the rate-limit guide
// disagrees; docs/decisions/session-commands.md records the choice).
const HEAVY = { name: 'heavy', ms: 2000 } as const;
const CONFERENCE = { name: 'conference', ms: 2000 } as const;
const CONFERENCE_MUTE = { name: 'conference_mute', ms: 2000 } as const;
// Our own group: a media stream's start and stop (docs/decisions/media-streams.md).
const STREAM = { name: 'stream', ms: 1000 } as const;
// Our own group: connecting calls (docs/decisions/connecting-calls.md).
const CONNECT = { name: 'connect', ms: 1000 } as const;

/** Per-session cooldown of every command; answer, hangup and disconnect have none. */
export const COOLDOWNS: Record<SessionCommandName, CooldownGroup | undefined> = {
  answer: undefined,
  hangup: undefined,
  disconnect: undefined,
  'playback/start': PLAYBACK,
  'playback/silence': PLAYBACK,
  'playback/stop': SEEK,
  'playback/pause': SEEK,
  'playback/resume': SEEK,
  'playback/seek': SEEK,
  'playback/restart': SEEK,
  play_and_get_digits: HEAVY,
  'record/start': HEAVY,
  'record/stop': HEAVY,
  'conference/join': CONFERENCE,
  'conference/leave': CONFERENCE,
  'conference/mute': CONFERENCE_MUTE,
  'conference/unmute': CONFERENCE_MUTE,
  'stream/start': STREAM,
  'stream/stop': STREAM,
  bridge: CONNECT,
  unbridge: CONNECT,
  transfer: CONNECT,
};

/** Per-room cooldowns of the room playback controls. */
export const ROOM_COOLDOWNS = {
  play: { name: 'conf_play', ms: 2000 },
  control: { name: 'conference_control', ms: 200 },
} as const satisfies Record<string, CooldownGroup>;
