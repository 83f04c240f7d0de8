// The channel part of an event (Channel-*, Caller-*, variable_*), in FreeSWITCH's order.
import type { Header } from '../esl/event.js';

export type ChannelStateName =
  | 'CS_NEW'
  | 'CS_INIT'
  | 'CS_ROUTING'
  | 'CS_SOFT_EXECUTE'
  | 'CS_EXECUTE'
  | 'CS_EXCHANGE_MEDIA'
  | 'CS_PARK'
  | 'CS_CONSUME_MEDIA'
  | 'CS_HIBERNATE'
  | 'CS_RESET'
  | 'CS_HANGUP'
  | 'CS_REPORTING'
  | 'CS_DESTROY'
  | 'CS_NONE';

const STATE_NUMBERS: Record<ChannelStateName, number> = {
  CS_NEW: 0,
  CS_INIT: 1,
  CS_ROUTING: 2,
  CS_SOFT_EXECUTE: 3,
  CS_EXECUTE: 4,
  CS_EXCHANGE_MEDIA: 5,
  CS_PARK: 6,
  CS_CONSUME_MEDIA: 7,
  CS_HIBERNATE: 8,
  CS_RESET: 9,
  CS_HANGUP: 10,
  CS_REPORTING: 11,
  CS_DESTROY: 12,
  CS_NONE: 13,
};

export type CallState = 'DOWN' | 'RINGING' | 'EARLY' | 'ACTIVE' | 'HANGUP';
export type AnswerState = 'ringing' | 'early' | 'answered' | 'hangup';

export interface CallerProfile {
  direction: 'inbound' | 'outbound';
  callerIdName: string;
  callerIdNumber: string;
  origCallerIdName: string;
  origCallerIdNumber: string;
  calleeIdName: string;
  calleeIdNumber: string;
  ani: string;
  destination: string;
  source: string;
  context: string;
  dialplan: string;
}

/** Microsecond timestamps of the channel's life; 0 means "not yet". */
export interface ChannelTimes {
  created: number;
  answered: number;
  progress: number;
  progressMedia: number;
  hangup: number;
}

/** The other channel of a bridge, as uuid_bridge gave it to this one's caller profile. */
export interface OtherLeg {
  /** `originatee` on the bridge's originator, `originator` on the other. */
  readonly type: 'originator' | 'originatee';
  readonly leg: ChannelSnapshot;
}

export interface ChannelSnapshot {
  uuid: string;
  name: string;
  state: ChannelStateName;
  callState: CallState;
  answerState: AnswerState;
  hitDialplan: boolean;
  hangupCause: string | undefined;
  profile: CallerProfile;
  times: ChannelTimes;
  vars: Map<string, string>;
  /** From uuid_bridge until the channel is transferred (a new caller profile). */
  otherLeg: OtherLeg | undefined;
}

export function channelHeaders(ch: ChannelSnapshot, withVars: boolean): Header[] {
  const p = ch.profile;
  const t = ch.times;
  const h: Header[] = [
    ['Channel-State', ch.state],
    ['Channel-Call-State', ch.callState],
    ['Channel-State-Number', String(STATE_NUMBERS[ch.state])],
    ['Channel-Name', ch.name],
    ['Unique-ID', ch.uuid],
    ['Call-Direction', p.direction],
    ['Presence-Call-Direction', p.direction],
    ['Channel-HIT-Dialplan', String(ch.hitDialplan)],
    ['Channel-Call-UUID', ch.uuid],
    ['Answer-State', ch.answerState],
  ];
  if (ch.hangupCause) h.push(['Hangup-Cause', ch.hangupCause]);
  h.push(
    ['Channel-Read-Codec-Name', 'L16'],
    ['Channel-Read-Codec-Rate', '8000'],
    ['Channel-Read-Codec-Bit-Rate', '128000'],
    ['Channel-Write-Codec-Name', 'L16'],
    ['Channel-Write-Codec-Rate', '8000'],
    ['Channel-Write-Codec-Bit-Rate', '128000'],
    ['Caller-Direction', p.direction],
    ['Caller-Logical-Direction', p.direction],
    ['Caller-Dialplan', p.dialplan],
    ['Caller-Caller-ID-Name', p.callerIdName],
    ['Caller-Caller-ID-Number', p.callerIdNumber],
    ['Caller-Orig-Caller-ID-Name', p.origCallerIdName],
    ['Caller-Orig-Caller-ID-Number', p.origCallerIdNumber],
    ['Caller-Callee-ID-Name', p.calleeIdName],
    ['Caller-Callee-ID-Number', p.calleeIdNumber],
    ['Caller-ANI', p.ani],
    ['Caller-Destination-Number', p.destination],
    ['Caller-Unique-ID', ch.uuid],
    ['Caller-Source', p.source],
    ['Caller-Context', p.context],
    ['Caller-Channel-Name', ch.name],
    ['Caller-Profile-Index', '1'],
    ['Caller-Profile-Created-Time', String(t.created)],
    ['Caller-Channel-Created-Time', String(t.created)],
    ['Caller-Channel-Answered-Time', String(t.answered)],
    ['Caller-Channel-Progress-Time', String(t.progress)],
    ['Caller-Channel-Progress-Media-Time', String(t.progressMedia)],
    ['Caller-Channel-Hangup-Time', String(t.hangup)],
    ['Caller-Channel-Transfer-Time', '0'],
    ['Caller-Channel-Resurrect-Time', '0'],
    ['Caller-Channel-Bridged-Time', '0'],
    ['Caller-Channel-Last-Hold', '0'],
    ['Caller-Channel-Hold-Accum', '0'],
    ['Caller-Screen-Bit', 'true'],
    ['Caller-Privacy-Hide-Name', 'false'],
    ['Caller-Privacy-Hide-Number', 'false'],
  );
  if (ch.otherLeg) h.push(['Other-Type', ch.otherLeg.type], ...otherLegHeaders(ch.otherLeg.leg));
  if (withVars) for (const [k, v] of ch.vars) h.push([`variable_${k}`, v]);
  return h;
}

/** The other channel's caller profile, as FreeSWITCH lists it under Other-Leg-*. */
function otherLegHeaders(leg: ChannelSnapshot): Header[] {
  const p = leg.profile;
  const t = leg.times;
  return [
    ['Other-Leg-Direction', p.direction],
    ['Other-Leg-Logical-Direction', p.direction],
    ['Other-Leg-Caller-ID-Name', p.callerIdName],
    ['Other-Leg-Caller-ID-Number', p.callerIdNumber],
    ['Other-Leg-Orig-Caller-ID-Number', p.origCallerIdNumber],
    ['Other-Leg-Callee-ID-Number', p.calleeIdNumber],
    ['Other-Leg-ANI', p.ani],
    ['Other-Leg-Destination-Number', p.destination],
    ['Other-Leg-Unique-ID', leg.uuid],
    ['Other-Leg-Source', p.source],
    ['Other-Leg-Context', p.context],
    ['Other-Leg-Channel-Name', leg.name],
    ['Other-Leg-Profile-Created-Time', String(t.created)],
    ['Other-Leg-Channel-Created-Time', String(t.created)],
    ['Other-Leg-Channel-Answered-Time', String(t.answered)],
    ['Other-Leg-Channel-Progress-Time', String(t.progress)],
    ['Other-Leg-Channel-Progress-Media-Time', String(t.progressMedia)],
    ['Other-Leg-Channel-Hangup-Time', String(t.hangup)],
    ['Other-Leg-Channel-Transfer-Time', '0'],
    ['Other-Leg-Channel-Resurrect-Time', '0'],
    ['Other-Leg-Channel-Bridged-Time', '0'],
    ['Other-Leg-Channel-Last-Hold', '0'],
    ['Other-Leg-Channel-Hold-Accum', '0'],
    ['Other-Leg-Screen-Bit', 'true'],
    ['Other-Leg-Privacy-Hide-Name', 'false'],
    ['Other-Leg-Privacy-Hide-Number', 'false'],
  ];
}

/** FreeSWITCH's two date formats: local "YYYY-MM-DD hh:mm:ss" and RFC 1123 GMT. */
export function localStamp(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
  );
}

export function nowMicros(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}
