// The small dialplan applications: answer, pre_answer, ring_ready, hangup, park, set, export,
// unset, sleep, log. Each returns an AppHandle; instant ones resolve at once with `_none_`.
import type { AppHandle, AppImpl } from '../core/context.js';
import { Player } from '../media/player.js';

export function instant(response = '_none_', run?: () => void): AppHandle {
  run?.();
  return { done: Promise.resolve(response), hangup: () => undefined };
}

export const answer: AppImpl = (ch) => instant('_none_', () => ch.answer());
export const preAnswer: AppImpl = (ch) => instant('_none_', () => ch.preAnswer());
export const ringReady: AppImpl = (ch) => instant('_none_', () => ch.ringReady());

export const hangup: AppImpl = (ch, arg) => instant('_none_', () => ch.hangup(arg || undefined));

export const set: AppImpl = (ch, arg) =>
  instant('_none_', () => {
    const idx = arg.indexOf('=');
    if (idx <= 0) return;
    const name = arg.slice(0, idx);
    const value = arg.slice(idx + 1);
    if (value === '') ch.vars.delete(name);
    else ch.vars.set(name, value);
  });

export const unset: AppImpl = (ch, arg) => instant('_none_', () => ch.vars.delete(arg.trim()));

export const log: AppImpl = () => instant();

/** park: CHANNEL_PARK, then nothing until hangup (or uuid_transfer), then CHANNEL_UNPARK. */
export const park: AppImpl = (ch) => {
  let finish!: () => void;
  const ended = new Promise<void>((r) => (finish = r));
  ch.fire('CHANNEL_PARK');
  return {
    done: ended.then(() => {
      ch.fire('CHANNEL_UNPARK');
      // park reports the response of the last application that ran nested inside it
      return ch.executor.lastAppResponse;
    }),
    hangup: finish,
  };
};

/** sleep <ms>: DTMF and uuid_break do not end it; a hangup does. */
export const sleepApp: AppImpl = (_ch, arg) => {
  const player = new Player(Math.max(0, Number(arg) || 0));
  return {
    done: player.start().then(() => '_none_'),
    hangup: () => player.interrupt('hangup'),
    suspend: () => player.suspend(),
    resume: () => player.resume(),
  };
};
