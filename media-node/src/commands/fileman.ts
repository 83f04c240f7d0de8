import type { SessionCommandName } from '@voicegw/shared';
import type { Playback } from '../session/playback.js';
import { describe, type CommandContext } from './types.js';

/**
 * The playback being played now, for pause/resume/seek/restart; when there is none the command
 * fails at once (`uuid_fileman` would answer `-ERR No file handle!`).
 */
export function playing(ctx: CommandContext): Playback | undefined {
  const playback = ctx.session.playback;
  return playback?.kind === 'files' && playback.started && playback.active ? playback : undefined;
}

/** Sends `uuid_fileman <uuid> <action>` for an immediate command and reports its reply. */
export async function fileman<C extends SessionCommandName>(
  ctx: CommandContext<C>,
  action: string,
): Promise<void> {
  if (!playing(ctx)) {
    await ctx.result(false, 'No active playback');
    return;
  }
  const { channel } = ctx.session;
  try {
    const reply = await channel.api(`uuid_fileman ${channel.uuid} ${action}`);
    const ok = reply.startsWith('+OK');
    await ctx.result(ok, ok ? undefined : reply.trim());
  } catch (err) {
    await ctx.result(false, describe(err));
  }
}
