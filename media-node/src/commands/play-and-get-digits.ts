import { randomBytes, randomUUID } from 'node:crypto';
import { DEFERRED_TIMEOUT_MS, type EventPayload } from '@voicegw/shared';
import type { FsEvent } from '../esl/event.js';
import { fetchAudio, publishFileNotFound, sleep } from './audio.js';
import { digitsResult } from './digits-result.js';
import { describe, type CommandContext, type SessionCommand } from './types.js';

/** What FreeSWITCH plays on invalid input when the command names no file (the contract's default). */
const DEFAULT_INVALID = 'silence_stream://250';
/** Any keypad entry; min/max digits and terminators do the validating. */
const ANY_DIGITS = '^[0-9A-D*#]*$';

/**
 * play_and_get_digits: prompt (and invalid-input) files are fetched into the cache first, then
 * FreeSWITCH's play_and_get_digits runs. Deferred: command.result true when the application
 * starts (CHANNEL_EXECUTE), false when a file cannot be fetched (with playback.file_not_found) or
 * nothing started within 2000 ms. digits.collected follows when it completes: FreeSWITCH reports
 * only through channel variables, which its EXECUTE_COMPLETE carries (digits-result.ts turns
 * them and the keys seen meanwhile into a status); a variable name of its own per run keeps an
 * earlier run's values out. Each key pressed is a `dtmf` event meanwhile.
 */
export const playAndGetDigits: SessionCommand<'play_and_get_digits'> = {
  name: 'play_and_get_digits',
  esl: 'api uuid_setvar <uuid> read_terminator_used; sendmsg execute play_and_get_digits <min> <max> <tries> <timeout> <terminators|none> <prompt> <invalid> <var> ^[0-9A-D*#]*$ <timeout>',
  confirmedBy:
    'CHANNEL_EXECUTE of its Application-UUID; CHANNEL_EXECUTE_COMPLETE carries the result',
  async start(ctx) {
    const deadline = Date.now() + DEFERRED_TIMEOUT_MS;
    // A playback holding the channel (event-lock) would keep the prompt waiting.
    await ctx.session.playback?.stop();
    return { confirmed: run(ctx, deadline) };
  },
};

async function run(ctx: CommandContext<'play_and_get_digits'>, deadline: number): Promise<void> {
  const { session, message } = ctx;
  const { args } = message;
  const urls = [...args.prompt_files, ...(args.invalid_files ?? [])];
  const fetched = await fetchAudio(session.node.media, urls, deadline);
  if (fetched.kind === 'late') {
    return session.serial(() => ctx.result(false, 'audio not fetched within 2000 ms'));
  }
  if (fetched.kind === 'missing') {
    await session.serial(async () => {
      await publishFileNotFound(session, message.command_uid, fetched.urls);
      await ctx.result(false, 'audio not found');
    });
    return;
  }

  const prompts = fetched.paths.slice(0, args.prompt_files.length);
  const invalids = fetched.paths.slice(args.prompt_files.length);
  const variable = `vg_digits_${randomBytes(4).toString('hex')}`;
  const applicationUuid = randomUUID();
  const application = [
    args.min_digits,
    args.max_digits,
    args.max_tries,
    args.timeout,
    args.terminators || 'none',
    playlist(prompts),
    invalids.length > 0 ? playlist(invalids) : DEFAULT_INVALID,
    variable,
    ANY_DIGITS,
    args.timeout,
  ].join(' ');

  const { channel } = session;
  let started = false;
  const keys: string[] = [];
  let resolveStarted!: (value: boolean) => void;
  const startedOrEnded = new Promise<boolean>((resolve) => (resolveStarted = resolve));
  const onEvent = (event: FsEvent): void => {
    if (event.name === 'DTMF') keys.push(event.header('DTMF-Digit') ?? '');
    if (event.header('Application-UUID') !== applicationUuid) return;
    if (event.name === 'CHANNEL_EXECUTE') {
      started = true;
      resolveStarted(true);
    } else if (event.name === 'CHANNEL_EXECUTE_COMPLETE') {
      finish();
      resolveStarted(false);
      const result = digitsResult({
        digits: event.variable(variable),
        readResult: event.variable('read_result'),
        terminatorUsed: event.variable('read_terminator_used'),
        keys,
        maxTries: args.max_tries,
      });
      const payload: EventPayload<'digits.collected'> = {
        event: 'digits.collected',
        session_uuid: session.id,
        command_uid: message.command_uid,
        ...result,
      };
      session.enqueue(() => session.publish(payload));
    }
  };
  const onGone = (): void => {
    finish();
    resolveStarted(false);
  };
  let over!: () => void;
  const done = new Promise<void>((resolve) => (over = resolve));
  const finish = (): void => {
    channel.off('event', onEvent);
    channel.off('gone', onGone);
    session.node.media.release(urls);
    over();
  };
  channel.on('event', onEvent);
  channel.once('gone', onGone);

  try {
    await session.serial(async () => {
      // read_terminator_used is left over from any earlier read: clear it.
      await channel.api(`uuid_setvar ${channel.uuid} read_terminator_used`);
      session.node.streams.yieldAudio(session, done);
      await channel.execute('play_and_get_digits', application, applicationUuid);
    });
  } catch (err) {
    finish();
    await session.serial(() => ctx.result(false, describe(err)));
    return;
  }
  const ok = await Promise.race([startedOrEnded, sleep(deadline - Date.now()).then(() => false)]);
  await session.serial(() =>
    ctx.result(ok && started, ok ? undefined : 'digit collection not started within 2000 ms'),
  );
}

const playlist = (paths: readonly string[]): string =>
  paths.length === 1 ? (paths[0] ?? '') : `file_string://${paths.join('!')}`;
