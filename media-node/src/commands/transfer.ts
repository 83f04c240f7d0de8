import {
  clearRefusedBridge,
  DEFERRED_TIMEOUT_MS,
  transferTimeoutMs,
  type HangupCause,
  type TransferOutcome,
} from '@voicegw/shared';
import { bridgeChannels } from '../bridge/connect.js';
import { BridgeParty, separate } from '../bridge/party.js';
import { BridgeError } from '../conference/bridge-leg.js';
import { Playback } from '../session/playback.js';
import type { Session } from '../session/session.js';
import { placeCall } from './dial.js';
import { confirmation, describe, type CommandContext, type SessionCommand } from './types.js';

type Failure = Exclude<TransferOutcome, 'answered'>;

/** How the new leg's end before an answer reads as the transfer's outcome. */
const OUTCOME: Partial<Record<HangupCause, Failure>> = {
  busy: 'busy',
  no_answer: 'no_answer',
  rejected: 'rejected',
};

const ERROR: Record<Failure, string> = {
  busy: 'The called number is busy',
  no_answer: 'The called number did not answer',
  rejected: 'The called number rejected the call',
  failed: 'The call could not be placed',
};

/** How the wait for the new leg ended. */
type Ringing =
  | { readonly kind: 'answered' }
  | { readonly kind: 'ended'; readonly cause: HangupCause }
  | { readonly kind: 'caller_gone' };

/**
 * transfer: the api created the new leg's session (`args.peer_session_uuid`, this node's, with
 * this session as its parent) and marked both `transferring`. The caller hears ringback
 * (TRANSFER_RINGBACK) while the leg is dialled as a dial is (placeCall: its own session.dialing,
 * session.ringing, call.answered, call.hangup, each naming this session); once it answers, the
 * two are bridged on this FreeSWITCH as a bridge is, and command.result (outcome answered)
 * follows the caller's call.bridged. A leg that ends unanswered gives command.result false with
 * its outcome (busy, no_answer, rejected, failed), the caller still up and back in park.
 */
export const transfer: SessionCommand<'transfer'> = {
  name: 'transfer',
  esl: "sendmsg execute playback <TRANSFER_RINGBACK>; bgapi originate {origination_uuid=<leg uuid>,…}<DIAL_STRING_TEMPLATE> &park(); on the leg's CHANNEL_ANSWER: uuid_setvar park_after_bridge true (both), uuid_bridge <uuid> <leg uuid>",
  confirmedBy:
    "the leg's CHANNEL_ANSWER, then CHANNEL_BRIDGE naming the call; or the leg's hangup, whose cause is the outcome",
  async start(ctx) {
    const { session: caller, message, node } = ctx;
    const { peer_session_uuid: legId, metadata, ...dial } = message.args;
    const party = new BridgeParty(caller, legId, message.command_uid);
    node.streams.yieldAudio(caller, party.ended);
    const ringback = await startRingback(caller, message.command_uid);
    const leg = await placeCall(node, {
      sessionId: legId,
      appId: caller.appId,
      args: { ...dial, ...(metadata ? { metadata } : {}) },
      parentSessionId: caller.id,
    });
    const { confirmed, settle } = confirmation();
    if (!leg) {
      settle(caller.serial(() => failed(ctx, party, undefined, ringback, 'failed')));
      return { confirmed };
    }
    const legParty = new BridgeParty(leg, caller.id, message.command_uid);
    party.linkTo({ kind: 'local', peer: leg.channel });
    legParty.linkTo({ kind: 'local', peer: caller.channel });
    // The leg rings for timeout_sec at most (its originate_timeout, or the node's own timer).
    const ringMs = dial.timeout_sec * 1000 + DEFERRED_TIMEOUT_MS;
    const rang = (outcome: Ringing): void => {
      switch (outcome.kind) {
        case 'answered':
          return settle(connect(ctx, party, legParty, leg));
        case 'ended': {
          const result = OUTCOME[outcome.cause] ?? 'failed';
          return settle(caller.serial(() => failed(ctx, party, legParty, ringback, result)));
        }
        case 'caller_gone':
          // Nobody is left to talk to: the leg goes (unanswered, it is cancelled).
          legParty.abandon();
          void leg.channel
            .api(`uuid_kill ${leg.channel.uuid} ORIGINATOR_CANCEL`)
            .catch(() => undefined);
          return settle(caller.serial(() => failed(ctx, party, legParty, ringback, 'failed')));
      }
    };
    ringing(leg, party, ringMs).then(rang, (err: unknown) => {
      caller.log.error({ err }, 'transfer: the wait for the leg failed');
      settle(caller.serial(() => failed(ctx, party, legParty, ringback, 'failed')));
    });
    return { confirmed };
  },
};

/** The caller hears ringback, replacing what it played (last wins); no playback events. */
async function startRingback(caller: Session, commandUid: string): Promise<Playback | undefined> {
  await caller.playback?.stop();
  const ringback = new Playback(caller, commandUid, [], 'ringback');
  caller.playback = ringback;
  try {
    await ringback.play(caller.node.config.TRANSFER_RINGBACK);
    return ringback;
  } catch (err) {
    caller.log.warn({ err }, 'ringback not started');
    return undefined;
  }
}

/** Until the leg answers, ends unanswered, or the caller leaves. */
function ringing(leg: Session, party: BridgeParty, ringMs: number): Promise<Ringing> {
  const answered = leg.channel.answered
    ? Promise.resolve(true)
    : new Promise<boolean>((resolve) =>
        leg.channel.expect(
          (event) => event.name === 'CHANNEL_ANSWER',
          ringMs,
          (event) => resolve(event !== undefined),
        ),
      );
  const ended = (cause: HangupCause): Ringing => ({ kind: 'ended', cause });
  return Promise.race<Ringing>([
    answered.then((ok) => (ok ? { kind: 'answered' as const } : leg.whenEnded.then(ended))),
    leg.whenEnded.then(ended),
    party.ended.then(() => ({ kind: 'caller_gone' as const })),
  ]);
}

/**
 * The leg answered: the two are bridged; the result follows the caller's call.bridged. It is
 * awaited for the 2000 ms every bridge has, or up to the command's timeout_ms if that is later
 * (a Redis outage holds the confirmation back, not the bridge).
 */
async function connect(
  ctx: CommandContext<'transfer'>,
  party: BridgeParty,
  legParty: BridgeParty,
  leg: Session,
): Promise<void> {
  const caller = ctx.session;
  const { message } = ctx;
  try {
    await caller.serial(() => bridgeChannels(caller.channel, leg.channel));
  } catch (err) {
    const error = err instanceof BridgeError ? err.message : describe(err);
    return caller.serial(() => failed(ctx, party, legParty, undefined, 'failed', error));
  }
  const deadline = Math.max(
    Date.now() + DEFERRED_TIMEOUT_MS,
    message.issued_at + transferTimeoutMs(message.args.timeout_sec),
  );
  const timer = setTimeout(() => party.abandon(), deadline - Date.now());
  const ok = await party.confirmed;
  clearTimeout(timer);
  if (!ok) {
    const error = 'the bridge was not confirmed in time';
    return caller.serial(async () => {
      // FreeSWITCH took the bridge: it ends, each call parks, each party leaves it as it must.
      await separate(caller.channel).catch(() => undefined);
      await failed(ctx, party, legParty, undefined, 'failed', error);
    });
  }
  await caller.serial(() =>
    ctx.result(true, undefined, [], { outcome: 'answered', peer_session_uuid: leg.id }),
  );
}

/** The transfer did not connect: both sides' fields cleared, the ringback stopped, the result. */
async function failed(
  ctx: CommandContext<'transfer'>,
  party: BridgeParty,
  legParty: BridgeParty | undefined,
  ringback: Playback | undefined,
  outcome: Failure,
  error: string = ERROR[outcome],
): Promise<void> {
  const { session: caller } = ctx;
  const legId = ctx.message.args.peer_session_uuid;
  caller.log.info({ leg: legId, outcome, error }, 'transfer failed');
  party.abandon();
  legParty?.abandon();
  await ringback?.stop();
  await clearRefusedBridge(caller.node, caller.id, legId);
  await ctx.result(false, error, [], { outcome, peer_session_uuid: legId });
}
