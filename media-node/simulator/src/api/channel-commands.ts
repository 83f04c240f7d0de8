// The uuid_* API commands (mod_commands), with mod_commands' reply wording.
import { randomUUID } from 'node:crypto';
import type { Channel } from '../core/channel.js';
import type { SimContext } from '../core/context.js';
import { normalizeCause } from '../core/causes.js';
import { DTMF_DEFAULT_SAMPLES, MESSAGE_LATENCY_MS } from '../core/timing.js';
import { uuidRecord } from '../media/recorder.js';
import { uuidAudioStream } from './audio-stream.js';
import { bridgedPeer, leaveBridgeForTransfer } from '../trunk/bridge.js';
import type { ApiHandler } from './types.js';

export const NO_CHANNEL = '-ERR No such channel!\n';

/** Runs `fn` with the channel named by the first argument, or answers "No such channel". */
function withChannel(
  fn: (ch: Channel, argv: string[], ctx: SimContext) => string | Promise<string>,
): ApiHandler {
  return (ctx, arg) => {
    const [uuid = '', ...argv] = arg.trim().split(/\s+/).filter(Boolean);
    const ch = ctx.channels.get(uuid);
    if (!ch || !ch.alive) return NO_CHANNEL;
    return fn(ch, argv, ctx);
  };
}

const uuidAnswer = withChannel((ch) => {
  ch.answer();
  return '+OK\n';
});

const uuidKill = withChannel((ch, argv) => {
  ch.kill(normalizeCause(argv[0]));
  return '+OK\n';
});

const uuidGetvar = withChannel((ch, argv) => ch.vars.get(argv[0] ?? '') ?? '_undef_');

const uuidSetvar = withChannel((ch, argv) => {
  const [name, ...value] = argv;
  if (!name) return '-USAGE: <uuid> <var> [value]\n';
  if (value.length === 0 || value.join(' ') === 'undef') ch.vars.delete(name);
  else ch.vars.set(name, value.join(' '));
  return '+OK\n';
});

const uuidExists: ApiHandler = (ctx, arg) => String(ctx.channels.get(arg.trim())?.alive ?? false);

const uuidBreak = withChannel((ch, argv) => {
  ch.executor.breakMedia(argv[0] === 'all');
  return '+OK\n';
});

/** uuid_broadcast <uuid> <path|app::args> [aleg|bleg|both]: a queued playback (or app). */
const uuidBroadcast = withChannel((ch, argv) => {
  const [path = '', leg = 'aleg'] = argv;
  const [app, appArg] = path.includes('::') ? path.split('::', 2) : ['playback', path];
  const targets = leg === 'bleg' ? [ch.peer] : leg === 'both' ? [ch, ch.peer] : [ch];
  for (const t of targets) {
    if (!t?.alive) continue;
    // The broadcast message takes a few frames longer than a sendmsg (trace b8: ~200 ms).
    setTimeout(
      () =>
        t.executor.enqueue({
          app: app ?? 'playback',
          arg: appArg ?? '',
          appUuid: randomUUID(),
          eventLock: false,
          fromMessage: true,
        }),
      9 * MESSAGE_LATENCY_MS,
    );
  }
  return '+OK Message sent\n';
});

/** uuid_fileman: acts on the file playing now; `pause` toggles, unknown commands are +OK. */
const uuidFileman = withChannel((ch, argv) => {
  const player = ch.executor.fileHandle();
  if (!player) return '-ERR No file handle!\n';
  const [cmd = '', val = ''] = (argv[0] ?? '').split(':');
  switch (cmd) {
    case 'pause':
      player.togglePause();
      break;
    case 'seek':
      player.seek(val);
      break;
    case 'restart':
      player.restart();
      break;
    case 'stop':
      player.stop();
      break;
    default:
      break; // volume, speed, truncate…: accepted, no audible effect here
  }
  return '+OK\n';
});

/** Digits with an optional @duration_ms: `12#`, `7@200` (200 ms = 1600 samples). */
export function parseDigits(spec: string): Array<{ digit: string; samples: number }> {
  const [digits = '', dur] = spec.split('@');
  const samples = dur ? Math.round(Number(dur) * 8) || DTMF_DEFAULT_SAMPLES : DTMF_DEFAULT_SAMPLES;
  return [...digits].filter((d) => /[0-9*#A-Da-d]/.test(d)).map((digit) => ({ digit, samples }));
}

/** Digits arrive one media read apart, so each one's consequences land before the next. */
function deliver(ch: Channel, spec: string, source: string): void {
  const digits = parseDigits(spec);
  const next = () => {
    const d = digits.shift();
    if (!d) return;
    ch.dtmf(d.digit, d.samples, source);
    setImmediate(next);
  };
  setTimeout(next, MESSAGE_LATENCY_MS);
}

/** Sends toward the far end: the other leg of a loopback pair, the far simulator of a trunk. */
const uuidSendDtmf = withChannel((ch, argv) => {
  const spec = argv[0] ?? '';
  const send = ch.sendDtmf;
  if (send) for (const d of parseDigits(spec)) send(d.digit, d.samples);
  else if (ch.peer?.alive) deliver(ch.peer, spec, 'UNKNOWN');
  return `+OK ${ch.uuid} sent DTMF ${spec}.\n`;
});

const uuidRecvDtmf = withChannel((ch, argv) => {
  const spec = argv[0] ?? '';
  deliver(ch, spec, 'APP');
  return `+OK ${ch.uuid} received DTMF ${spec}.\n`;
});

/**
 * uuid_transfer <uuid> [-bleg|-both] <dest> [dialplan] [context]; `app:arg,app:arg inline`.
 * `-bleg` transfers the channel's bridged peer instead, `-both` the two of them; a transferred
 * channel leaves its bridge with a new caller profile (bridge traces 2a, 2c).
 */
const uuidTransfer = withChannel(async (ch, argv, ctx) => {
  const leg = argv.find((a) => a === '-bleg' || a === '-both');
  const args = argv.filter((a) => a !== leg);
  const [dest = '', dialplan = 'XML', context = 'default'] = args;
  if (!dest) return '-USAGE: <uuid> [-bleg|-both] <dest-exten> [<dialplan>] [<context>]\n';
  const apps =
    dialplan === 'inline'
      ? dest.split(',').map((step) => {
          const idx = step.indexOf(':');
          return idx === -1
            ? { app: step, arg: '' }
            : { app: step.slice(0, idx), arg: step.slice(idx + 1) };
        })
      : [{ app: 'park', arg: '' }];
  const peer = bridgedPeer(ch, ctx);
  const targets = leg === '-bleg' ? [peer] : leg === '-both' ? [ch, peer] : [ch];
  const moving = targets.filter((t): t is Channel => t !== undefined);
  for (const t of moving) t.transferring = true;
  for (const t of moving) leaveBridgeForTransfer(t, ctx);
  const profile = { destination: dest, dialplan, context };
  await Promise.all(moving.map((t) => transferTo(t, profile, apps)));
  return '+OK\n';
});

/**
 * One channel's transfer: its new caller profile (Caller-Destination-Number is where it goes,
 * until an inline dialplan, run, gives the old one back: bridge trace 2a), it leaves what it
 * runs, then runs `apps` as its new dialplan.
 */
async function transferTo(
  ch: Channel,
  profile: { readonly destination: string; readonly dialplan: string; readonly context: string },
  apps: ReadonlyArray<{ app: string; arg: string }>,
): Promise<void> {
  const before = ch.profile.destination;
  Object.assign(ch.profile, profile);
  await ch.executor.takeOver();
  ch.transferring = false;
  if (!ch.alive) return;
  ch.setState('CS_ROUTING');
  if (profile.dialplan === 'inline') ch.profile.destination = before;
  ch.setState('CS_EXECUTE');
  void ch.executor.runSequence(apps);
}

/** sched_hangup [+]<sec> <uuid> [cause]: default cause ALLOTTED_TIMEOUT. */
const schedHangup: ApiHandler = (ctx, arg) => {
  const [when = '', uuid = '', cause] = arg.trim().split(/\s+/);
  if (!when) return '-USAGE: [+]<time> <uuid> [<cause>]\n';
  const ch = ctx.channels.get(uuid);
  if (!ch?.alive) return '-ERR No Such Channel!\n';
  const sec = when.startsWith('+') ? Number(when.slice(1)) : Number(when) - Date.now() / 1000;
  const c = normalizeCause(cause, 'ALLOTTED_TIMEOUT');
  if (sec <= 0) ch.kill(c);
  else setTimeout(() => ch.kill(c), sec * 1000).unref();
  return '+OK\n';
};

const hupall: ApiHandler = (ctx, arg) => {
  const cause = normalizeCause(arg.trim().split(/\s+/)[0], 'MANAGER_REQUEST');
  for (const ch of [...ctx.channels.values()]) ch.kill(cause);
  return '+OK hangup all channels with cause ' + cause + '\n';
};

export const CHANNEL_COMMANDS: Record<string, ApiHandler> = {
  uuid_answer: uuidAnswer,
  uuid_kill: uuidKill,
  uuid_getvar: uuidGetvar,
  uuid_setvar: uuidSetvar,
  uuid_exists: uuidExists,
  uuid_break: uuidBreak,
  uuid_broadcast: uuidBroadcast,
  uuid_fileman: uuidFileman,
  uuid_send_dtmf: uuidSendDtmf,
  uuid_recv_dtmf: uuidRecvDtmf,
  uuid_record: withChannel((ch, argv) => uuidRecord(ch, argv)),
  // mod_audio_stream's own parsing and replies (an unknown uuid is -ERR Operation Failed).
  uuid_audio_stream: uuidAudioStream,
  uuid_transfer: uuidTransfer,
  sched_hangup: schedHangup,
  hupall,
};
