// Plays files on a channel the way switch_ivr_play_file does: fetch/open first (a failure fires
// nothing), then PLAYBACK_START, real-time play, PLAYBACK_STOP with Playback-Status and the
// playback_* variables. Shared by playback, play_and_get_digits and uuid_broadcast.
import type { Channel } from '../core/channel.js';
import type { SimContext } from '../core/context.js';
import { Player, type PlayEnd } from '../media/player.js';
import { parseToneStream, writeTone } from '../media/tone-stream.js';

export type FileResult = PlayEnd | 'not_found';

export class FilePlayback {
  private current: Player | undefined;
  private waiter: Player | undefined;
  private interrupted: PlayEnd | undefined;
  private suspended = false;

  constructor(
    private readonly ch: Channel,
    private readonly ctx: SimContext,
  ) {}

  get player(): Player | undefined {
    return this.current;
  }

  /** In the play loop (a file or a wait): where FreeSWITCH parses queued messages. */
  get inMediaLoop(): boolean {
    return this.current !== undefined || this.waiter !== undefined;
  }

  get hungUp(): boolean {
    return this.interrupted === 'hangup';
  }

  async play(path: string): Promise<FileResult> {
    if (this.interrupted) return this.interrupted;
    const resolved = await this.ctx.media.resolve(path);
    if (this.interrupted) return this.interrupted;
    if (!resolved.ok) return 'not_found';
    const player = new Player(resolved.durationMs);
    this.current = player;
    const fileHeader: [string, string] = ['Playback-File-Path', path];
    this.ch.fire('PLAYBACK_START', { tail: [fileHeader] });
    if (this.suspended) player.suspend();
    const tone = path.startsWith('tone_stream://') ? parseToneStream(path) : undefined;
    if (tone) writeTone(tone, player, this.ch.audio);
    this.ch.executor.poke();
    this.ch.playing++;
    const how = await player.start().finally(() => this.ch.playing--);
    this.current = undefined;
    const ms = Math.round(Math.min(player.position(), resolved.durationMs));
    const samples = Math.round(ms * 8);
    this.ch.vars.set('playback_last_offset_pos', String(samples));
    this.ch.vars.set('playback_seconds', String(Math.floor(ms / 1000)));
    this.ch.vars.set('playback_ms', String(ms));
    this.ch.vars.set('playback_samples', String(samples));
    this.ch.fire('PLAYBACK_STOP', {
      tail: [fileHeader, ['Playback-Status', how === 'break' ? 'break' : 'done']],
    });
    return how;
  }

  /** Waits between files (or for input) in a way a break or hangup ends at once. */
  async pause(ms: number): Promise<FileResult | undefined> {
    if (this.interrupted) return this.interrupted;
    const gap = new Player(ms);
    this.waiter = gap;
    const how = await gap.start();
    this.waiter = undefined;
    return how === 'done' ? undefined : how;
  }

  breakMedia(): boolean {
    const target = this.current ?? this.waiter;
    if (!target) return false;
    target.interrupt('break');
    return true;
  }

  hangup(): void {
    this.interrupted = 'hangup';
    this.current?.interrupt('hangup');
    this.waiter?.interrupt('hangup');
  }

  suspend(): void {
    this.suspended = true;
    this.current?.suspend();
    this.waiter?.suspend();
  }

  resume(): void {
    this.suspended = false;
    this.current?.resume();
    this.waiter?.resume();
  }
}

/** The list of files in a playback argument, split by the channel's playback_delimiter. */
export function splitFiles(ch: Channel, arg: string): string[] {
  const delim = ch.vars.get('playback_delimiter');
  if (!delim || arg.startsWith('file_string://')) return [arg];
  return arg.split(delim).filter((f) => f.length > 0);
}
