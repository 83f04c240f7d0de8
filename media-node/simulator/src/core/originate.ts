// originate: builds the outbound leg with the event sequence of traces a/g/i and plays the far
// end from the number book. loopback/<ext>/<ctx> also gets its B leg (answer+park dialplan);
// sofia/<profile>/<user>@<host>:<port> calls the simulator whose SIP trunk listens there; other
// sofia/… endpoints have a simulated remote party; error/<cause> fails with no events at all.
import { randomUUID } from 'node:crypto';
import type { SimContext } from './context.js';
import { Channel } from './channel.js';
import { isKnownCause, normalizeCause } from './causes.js';
import { parseOriginate, type OriginateRequest } from './dial-string.js';
import { BEHAVIOR_CAUSE, type NumberBehavior } from './numbers.js';
import { RING_DELAY_MS } from './timing.js';
import type { CallerProfile } from './channel-headers.js';

export interface OriginateResult {
  readonly body: string;
  /** Runs after the result is delivered: the A leg starts its application. */
  readonly after?: () => void;
}

const DEFAULT_TIMEOUT_SEC = 60;

export async function originate(ctx: SimContext, arg: string): Promise<OriginateResult> {
  const req = parseOriginate(arg);
  if (!req)
    return {
      body: '-USAGE: <call url> <exten>|&<application_name>(<app_args>) [<dialplan>] [<context>] [<cid_name>] [<cid_num>] [<timeout_sec>]\n',
    };
  const { tech, number } = req.endpoint;
  if (tech === 'error') {
    const cause = number.toUpperCase();
    return { body: `-ERR ${isKnownCause(cause) ? cause : 'CHAN_NOT_IMPLEMENTED'}\n` };
  }
  if (tech === 'user') {
    return { body: `-ERR ${/^\d+$/.test(number) ? 'USER_NOT_REGISTERED' : 'SUBSCRIBER_ABSENT'}\n` };
  }
  if (tech !== 'loopback' && tech !== 'sofia') return { body: '-ERR CHAN_NOT_IMPLEMENTED\n' };
  // mod_sofia refuses an unknown gateway before any channel exists ([ERR] Invalid Gateway).
  const gateway = req.endpoint.gateway;
  if (gateway !== undefined && !ctx.gateways.has(gateway))
    return { body: '-ERR INVALID_GATEWAY\n' };

  const a = createALeg(ctx, req);
  const behavior = ctx.numbers.lookup(number);
  const timeoutMs = (req.timeoutSec ?? DEFAULT_TIMEOUT_SEC) * 1000;
  const timeout = setTimeout(() => {
    if (!a.answered) a.hangup('NO_ANSWER');
  }, timeoutMs);

  // FreeSWITCH's originate returns at the answer or, with early media, already at the 183: the
  // job's +OK comes before CHANNEL_ANSWER, the application starts in early media, and
  // originate_timeout no longer applies (what happens next is the channel's own events).
  const outcome = new Promise<boolean>((resolve) => {
    a.onAnswer(() => resolve(true));
    a.onEarlyMedia(() => resolve(true));
    a.onHangup(() => resolve(false));
  });
  const sip = req.endpoint.sip;
  if (tech === 'loopback') startLoopbackB(ctx, a, req, behavior);
  else if (sip) ctx.trunk.dial(a, sip, number);
  else playRemoteParty(a, behavior);
  const established = await outcome;
  clearTimeout(timeout);
  if (!established) {
    await a.ended;
    return { body: `-ERR ${a.hangupCause ?? 'NORMAL_CLEARING'}\n` };
  }
  const app = req.app ?? { name: 'park', arg: '' };
  return {
    body: `+OK ${a.uuid}\n`,
    after: () => {
      if (!a.alive) return;
      a.hitDialplan = true;
      a.setState('CS_EXECUTE');
      void a.executor.runSequence([{ app: app.name, arg: app.arg }]);
    },
  };
}

function createALeg(ctx: SimContext, req: OriginateRequest): Channel {
  const v = req.vars;
  const uuid = v.get('origination_uuid') ?? randomUUID();
  const cidName = v.get('origination_caller_id_name') ?? 'FreeSWITCH';
  const cidNumber = v.get('origination_caller_id_number') ?? '0000000000';
  const ep = req.endpoint;
  const profile: CallerProfile = {
    direction: 'outbound',
    callerIdName: cidName,
    callerIdNumber: cidNumber,
    origCallerIdName: cidName,
    origCallerIdNumber: cidNumber,
    calleeIdName: 'Outbound Call',
    // mod_loopback reports the context as the callee number
    calleeIdNumber: ep.tech === 'loopback' ? ep.context : ep.number,
    ani: cidNumber,
    destination: ep.number,
    source: ep.tech === 'loopback' ? 'mod_loopback' : 'mod_sofia',
    context: ep.context,
    dialplan: 'xml',
  };
  const a = new Channel(ctx, {
    uuid,
    name: ep.channelName,
    profile,
    vars: [
      ['direction', 'outbound'],
      ['is_outbound', 'true'],
      ['session_id', String(ctx.channels.size + 1)],
      ['read_codec', 'L16'],
      ['read_rate', '8000'],
      ['write_codec', 'L16'],
      ['write_rate', '8000'],
      ['channel_name', ep.channelName],
      ['uuid', uuid],
      ['call_uuid', uuid],
    ],
  });
  a.state = 'CS_NONE';
  // The new uuid is announced before the originate's variables are applied (bridge trace 8a).
  if (ep.tech === 'loopback') a.fire('CHANNEL_UUID', { pre: [['Old-Unique-ID', randomUUID()]] });
  for (const [k, value] of [
    ...[...v].filter(([k]) => k !== 'origination_uuid'),
    ['origination_uuid', uuid],
    ['originate_early_media', 'true'],
    ['originate_endpoint', ep.tech],
  ])
    if (k !== undefined && value !== undefined) a.vars.set(k, value);
  a.fire('CHANNEL_OUTGOING', { vars: false });
  a.setState('CS_INIT');
  a.fire('CHANNEL_CREATE');
  a.fire('CHANNEL_ORIGINATE');
  a.setState('CS_ROUTING');
  a.setState('CS_CONSUME_MEDIA');
  return a;
}

/** The far end of a sofia leg: ring (and early media), then answer or refuse. */
function playRemoteParty(a: Channel, b: NumberBehavior & { cause?: string }): void {
  if (b.ringMs > 0) {
    setTimeout(() => {
      a.ringReady();
      if (b.earlyMedia) a.preAnswer();
    }, RING_DELAY_MS);
  }
  if (!Number.isFinite(b.ringMs)) return;
  setTimeout(
    () => {
      if (!a.alive || a.answered) return;
      if (b.behavior === 'answer') a.answer();
      else a.kill(b.cause ?? BEHAVIOR_CAUSE[b.behavior]);
    },
    Math.max(RING_DELAY_MS, b.ringMs),
  );
}

/** mod_loopback: a B leg that runs a dialplan, linked so each leg's changes reach the other. */
function startLoopbackB(
  ctx: SimContext,
  a: Channel,
  req: OriginateRequest,
  b: NumberBehavior & { cause?: string },
): void {
  const ep = req.endpoint;
  const uuid = randomUUID();
  a.vars.set('other_loopback_leg_uuid', uuid);
  a.vars.set('loopback_leg', 'A');
  const name = `loopback/${ep.number}-b`;
  const bleg = new Channel(ctx, {
    uuid,
    name,
    profile: { ...a.profile, direction: 'inbound', source: 'mod_loopback' },
    vars: [
      ['direction', 'inbound'],
      ['uuid', uuid],
      ['session_id', String(ctx.channels.size + 1)],
      ['channel_name', name],
      ['read_codec', 'L16'],
      ['read_rate', '8000'],
      ['write_codec', 'L16'],
      ['write_rate', '8000'],
      ['other_loopback_leg_uuid', a.uuid],
      ['loopback_leg', 'B'],
    ],
  });
  a.peer = bleg;
  bleg.peer = a;
  // Once answered, the A leg shows the far end as its caller (channel_cid_flipped).
  a.onAnswer(() => {
    const p = a.profile;
    [p.callerIdName, p.calleeIdName] = [p.calleeIdName, p.callerIdName];
    [p.callerIdNumber, p.calleeIdNumber] = [p.calleeIdNumber, p.callerIdNumber];
    a.vars.set('channel_cid_flipped', 'yes');
  });
  // After answer, the far (B) leg hanging up clears the A leg normally (trace h3).
  bleg.peerCause = (cause) => (a.answered ? 'NORMAL_CLEARING' : cause);
  // An abnormal far-end hangup after answer first ends the A leg's application (CHANNEL_UNPARK,
  // EXECUTE_COMPLETE while still answered); the A leg then hangs up as its app list ran out.
  bleg.releasePeer = (peer, cause) => {
    if (peer.answered && cause !== 'NORMAL_CLEARING') void peer.executor.unwind();
    else peer.hangup(bleg.peerCause(cause));
  };
  bleg.beforeAnswer = () => a.answer();
  const ringReady = bleg.ringReady.bind(bleg);
  bleg.ringReady = () => {
    a.ringReady();
    ringReady();
  };
  const preAnswer = bleg.preAnswer.bind(bleg);
  bleg.preAnswer = () => {
    a.preAnswer();
    preAnswer();
  };
  bleg.setState('CS_INIT');
  bleg.fire('CHANNEL_CREATE');
  bleg.hitDialplan = true;
  bleg.setState('CS_ROUTING');
  bleg.setState('CS_EXECUTE');
  const refuse = b.behavior !== 'answer' && b.behavior !== 'no_answer';
  const cause = b.cause ?? (b.behavior === 'answer' ? undefined : BEHAVIOR_CAUSE[b.behavior]);
  const apps: Array<{ app: string; arg: string }> = [];
  if (refuse && b.ringMs === 0) apps.push({ app: 'hangup', arg: normalizeCause(cause) });
  else if (b.behavior === 'answer' && b.ringMs === 0) apps.push({ app: 'answer', arg: '' });
  else {
    apps.push({ app: 'ring_ready', arg: '' });
    if (b.earlyMedia) apps.push({ app: 'pre_answer', arg: '' });
  }
  if (apps[0]?.app !== 'hangup') apps.push({ app: 'park', arg: '' });
  void bleg.executor.runSequence(apps);
  if (b.ringMs > 0 && Number.isFinite(b.ringMs)) {
    setTimeout(() => {
      if (!bleg.alive || bleg.answered) return;
      if (b.behavior === 'answer') bleg.answer();
      else bleg.kill(cause);
    }, b.ringMs);
  }
}
