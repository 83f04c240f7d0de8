import { lua, type RoomCommandMessage } from '@voicegw/shared';
import type { NodeContext, RoomHost } from '../context.js';
import type { FsEvent } from '../esl/event.js';
import type { NodeWithSessions } from '../session/registry.js';
import { BridgeHost } from './bridge-host.js';
import { MAINTENANCE } from './membership.js';

/** One room play operation: its files in order, each finishing with play-file-done. */
interface PlayOperation {
  readonly operationId: string;
  readonly urls: readonly string[];
  /** Local paths still to finish playing, in order. */
  readonly pending: string[];
  /** URLs whose cached files stay pinned until the operation is over. */
  readonly pinned: string[];
}

interface Room {
  readonly id: string;
  readonly appId: string;
  readonly plays: PlayOperation[];
  volume: number | undefined;
}

/**
 * Room playback on the host node. The api publishes the immediate room events itself
 * (conference.play.started/paused/stopped/volume_changed, created, destroyed); the node carries
 * the controls out over `conference <room> ...` and reports conference.play.finished when every
 * file of a play operation has ended naturally (play-file-done without a stop before it).
 */
export class Rooms implements RoomHost {
  private readonly rooms = new Map<string, Room>();
  /** Members from other nodes, in through bridge legs. */
  readonly bridges: BridgeHost;

  constructor(private readonly node: NodeWithSessions) {
    node.router.onCustom(MAINTENANCE, this.onEvent);
    this.bridges = new BridgeHost(node);
  }

  async execute(message: RoomCommandMessage): Promise<void> {
    const room = this.room(message);
    const log = this.node.log.child({ room_id: room.id, command: message.command });
    try {
      switch (message.command) {
        case 'play':
          return await this.play(room, message);
        case 'pause':
          return await this.api(room, 'pause_play', log);
        case 'stop':
          // A stopped play did not end naturally: it is over now, whatever FreeSWITCH reports.
          for (const play of [...room.plays]) await this.finished(room, play, false);
          return await this.api(room, 'stop all', log);
        case 'volume':
          room.volume = message.args.volume ?? 0;
          return await this.api(room, `file-vol ${room.volume}`, log);
        case 'destroy':
          return await this.destroy(room, log);
      }
    } catch (err) {
      log.warn({ err }, 'room command failed');
    }
  }

  /**
   * A room control read after its deadline is not run. A play's room says `playing` since the
   * api accepted it: it says `stopped` again, as after a play of which nothing could be played.
   */
  async expire(message: RoomCommandMessage): Promise<void> {
    if (message.command !== 'play') return;
    const { keys, scripts } = this.node;
    await scripts.run(
      lua.roomPlaybackDone(
        { room: keys.room(message.room_id) },
        { operationId: message.operation_id },
      ),
    );
  }

  private room(message: RoomCommandMessage): Room {
    let room = this.rooms.get(message.room_id);
    if (!room) {
      room = { id: message.room_id, appId: message.app_id, plays: [], volume: undefined };
      this.rooms.set(room.id, room);
    }
    return room;
  }

  /** Fetches every URL, then queues one `conference play` per file (mod_conference plays them in turn). */
  private async play(room: Room, message: RoomCommandMessage): Promise<void> {
    const urls = message.args.urls ?? [];
    const { media, log } = this.node;
    const results = await Promise.allSettled(urls.map((url) => media.acquire([url])));
    const play: PlayOperation = {
      operationId: message.operation_id,
      urls,
      pending: [],
      pinned: [],
    };
    room.plays.push(play);
    for (const [i, result] of results.entries()) {
      const url = urls[i] ?? '';
      const path = result.status === 'fulfilled' ? result.value[0] : undefined;
      if (!path) {
        log.warn({ room_id: room.id, url }, 'room play: audio not found');
        continue;
      }
      play.pinned.push(url);
      const reply = await this.node.esl.api(`conference ${room.id} play ${path}`);
      if (reply.startsWith('+OK')) play.pending.push(path);
      else log.warn({ room_id: room.id, reply: reply.trim() }, 'room play refused');
    }
    if (play.pending.length === 0) return this.finished(room, play, false);
    if (room.volume) await this.node.esl.api(`conference ${room.id} file-vol ${room.volume}`);
  }

  private async destroy(room: Room, log: NodeContext['log']): Promise<void> {
    for (const play of [...room.plays]) await this.finished(room, play, false);
    this.rooms.delete(room.id);
    // A member's own playback runs inside its conference and would hold its kick back.
    for (const session of this.node.sessions.all()) {
      if (session.conference?.roomId === room.id) await session.playback?.stop();
    }
    // Kicked members go back to park; each one's del-member reports conference.member.left.
    // Bridge legs of members on other nodes hang up, which returns those calls to park there.
    const reply = await this.node.esl.api(`conference ${room.id} kick all`);
    if (!reply.startsWith('+OK') && !reply.includes('not found'))
      log.warn({ reply: reply.trim() }, 'kick all refused');
  }

  private async api(room: Room, subcommand: string, log: NodeContext['log']): Promise<void> {
    const reply = await this.node.esl.api(`conference ${room.id} ${subcommand}`);
    if (!reply.startsWith('+OK')) log.info({ reply: reply.trim() }, `conference ${subcommand}`);
  }

  private readonly onEvent = (event: FsEvent): void => {
    const room = this.rooms.get(event.header('Conference-Name') ?? '');
    if (!room) return;
    switch (event.header('Action')) {
      case 'play-file-done': {
        const file = event.header('File') ?? '';
        const play = room.plays.find((p) => p.pending[0] === file);
        if (!play) return;
        play.pending.shift();
        if (play.pending.length === 0) void this.finished(room, play, true);
        return;
      }
      case 'conference-destroy':
        // The last member left: whatever was queued will not play.
        for (const play of [...room.plays]) void this.finished(room, play, false);
        return;
    }
  };

  /** The operation is over: the room's playback state, and conference.play.finished if natural. */
  private async finished(room: Room, play: PlayOperation, natural: boolean): Promise<void> {
    const index = room.plays.indexOf(play);
    if (index === -1) return;
    room.plays.splice(index, 1);
    const { keys, scripts, events, log, media } = this.node;
    media.release(play.pinned);
    try {
      await scripts.run(
        lua.roomPlaybackDone({ room: keys.room(room.id) }, { operationId: play.operationId }),
      );
      if (natural) {
        await events.publish(room.appId, {
          event: 'conference.play.finished',
          room_id: room.id,
          operation_id: play.operationId,
          urls: [...play.urls],
        });
      }
    } catch (err) {
      log.warn({ err, room_id: room.id }, 'room playback end not recorded');
    }
  }
}
