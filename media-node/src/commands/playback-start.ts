import { DEFERRED_TIMEOUT_MS } from '@voicegw/shared';
import { Playback } from '../session/playback.js';
import type { Session } from '../session/session.js';
import { fetchAudio, publishFileNotFound, sleep } from './audio.js';
import { describe, type CommandContext, type SessionCommand } from './types.js';

/**
 * playback/start: every URL is fetched into the local cache first, then the cached files are
 * played (`file_string://` joins several). Last wins: a playback already current is stopped at
 * once, and its own playback.stopped carries its own command_uid. Deferred: command.result true
 * on PLAYBACK_START; false with playback.file_not_found when a URL cannot be fetched, or when
 * nothing started within 2000 ms (the playback is then abandoned).
 */
export const playbackStart: SessionCommand<'playback/start'> = {
  name: 'playback/start',
  esl: 'api uuid_break (the current playback); sendmsg execute playback <file>|file_string://<f1>!<f2>; uuid_fileman seek:<ms> for offset_sec',
  confirmedBy: 'PLAYBACK_START; CHANNEL_EXECUTE_COMPLETE with FILE NOT FOUND is a failure',
  async start(ctx) {
    const { session, message } = ctx;
    const deadline = Date.now() + DEFERRED_TIMEOUT_MS;
    await session.playback?.stop();
    const playback = new Playback(session, message.command_uid, message.args.urls, 'files', () =>
      session.node.media.release(message.args.urls),
    );
    session.playback = playback;
    return { confirmed: run(ctx, playback, deadline) };
  },
};

async function run(
  ctx: CommandContext<'playback/start'>,
  playback: Playback,
  deadline: number,
): Promise<void> {
  const { session, message } = ctx;
  const { urls } = message.args;
  const fetched = await fetchAudio(session.node.media, urls, deadline);
  if (fetched.kind === 'late') return abandon(ctx, playback, 'audio not fetched within 2000 ms');
  if (fetched.kind === 'missing') {
    session.log.info({ failed: fetched.urls }, 'playback: audio not found');
    await session.serial(() => publishFileNotFound(session, message.command_uid, fetched.urls));
    return abandon(ctx, playback, 'audio not found');
  }
  if (playback.superseded || session.ended) {
    session.node.media.release(urls);
    return abandon(ctx, playback, 'replaced by a later command');
  }

  const { paths } = fetched;
  const arg = paths.length === 1 ? (paths[0] ?? '') : `file_string://${paths.join('!')}`;
  try {
    await session.serial(() => {
      session.node.streams.yieldAudio(session, playback.end);
      return playback.play(arg);
    });
  } catch (err) {
    await ctx.result(false, describe(err));
    return;
  }
  if (await playback.waitStarted(deadline - Date.now())) {
    const offset = message.args.offset_sec;
    if (offset) await seekTo(session, offset * 1000);
    await session.serial(() => ctx.result(true));
    return;
  }
  if ((await Promise.race([playback.end, sleep(0)])) === 'FILE NOT FOUND') {
    // The cached copy could not be opened by FreeSWITCH (a volume not shared, say).
    await session.serial(() => publishFileNotFound(session, message.command_uid, urls));
    return abandon(ctx, playback, 'FreeSWITCH could not open the audio');
  }
  await playback.stop();
  await session.serial(() => ctx.result(false, 'playback not started within 2000 ms'));
}

async function abandon(
  ctx: CommandContext<'playback/start'>,
  playback: Playback,
  error: string,
): Promise<void> {
  playback.superseded = true;
  if (ctx.session.playback === playback) ctx.session.playback = undefined;
  await ctx.session.serial(() => ctx.result(false, error));
}

async function seekTo(session: Session, ms: number): Promise<void> {
  const { channel } = session;
  const reply = await channel.api(`uuid_fileman ${channel.uuid} seek:${ms}`).catch(String);
  if (!reply.startsWith('+OK')) session.log.warn({ reply }, 'offset_sec: seek refused');
}
