// The `conference` API command: list, json_list, mute/unmute, deaf/undeaf, kick/hup, play,
// pause_play, stop, file_seek, volume_in/volume_out — replies worded as mod_conference's.
import type { SimContext } from '../core/context.js';
import type { Conference, Member } from './conference.js';
import { cjsonPrint } from './cjson.js';

const ROOM_FLAGS = 'running|answered|enforce_min|dynamic|exit_sound|enter_sound|json_status';

export async function conferenceApi(ctx: SimContext, arg: string): Promise<string> {
  const argv = arg.trim().split(/\s+/).filter(Boolean);
  const [name, sub, ...rest] = argv;
  if (!name) return '-ERR Usage: conference <name> <command> [args]\n';
  if (name === 'list' && !sub) return listAll(ctx);
  const conf = ctx.conferences.get(name);
  if (!conf) return `-ERR Conference ${name} not found\n`;
  switch (sub) {
    case 'list':
      return rest[0] === 'count' ? `${conf.size}\n` : rows(conf);
    case 'json_list':
      return cjsonPrint([roomJson(conf)]);
    case 'mute':
    case 'unmute':
    case 'deaf':
    case 'undeaf':
      return eachMember(conf, rest[0], sub, (m) => setFlag(conf, m, sub));
    case 'kick':
    case 'hup':
      return eachMember(conf, rest[0], sub === 'kick' ? 'kicked' : 'hup', (m) => {
        conf.fireMember(m, `${sub}-member`);
        m.leave('kick');
      });
    case 'volume_in':
    case 'volume_out':
      return volume(conf, sub, rest);
    case 'play':
      return play(conf, rest);
    case 'pause_play': {
      const target = rest[0] ? conf.members.get(Number(rest[0]))?.files : conf.files;
      const paused = target?.togglePause();
      if (paused === undefined) return '-ERR No file playing\n';
      return paused ? '+OK Pause\n' : '+OK Resume\n';
    }
    case 'file_seek': {
      const spec = rest[0] ?? '0';
      if (!conf.files.seek(spec)) return '-ERR No file playing\n';
      return `+OK seek to position ${Math.round(Number(spec) * 8)}\n`;
    }
    case 'stop': {
      const which = rest[0] ?? 'current';
      const target = rest[1] ? conf.members.get(Number(rest[1]))?.files : conf.files;
      if (!target) return `-ERR Non-Existant ID ${rest[1]}\n`;
      return `+OK Stopped ${target.stop(which)} files.\n`;
    }
    default:
      return `-ERR Unsupported command ${sub ?? ''}\n`;
  }
}

function listAll(ctx: SimContext): string {
  if (ctx.conferences.size === 0) return '-ERR No active conferences.\n';
  let out = '';
  for (const conf of ctx.conferences.values()) {
    out += `+OK Conference ${conf.name} (${conf.size} member${conf.size === 1 ? '' : 's'} rate: 8000 flags: ${ROOM_FLAGS})\n`;
    out += rows(conf);
  }
  return out;
}

/** Newest member first, as mod_conference lists them. */
function rows(conf: Conference): string {
  return [...conf.members.values()]
    .reverse()
    .map((m) => {
      const flags = [m.canHear && 'hear', m.canSpeak && 'speak', conf.hasFloor(m) && 'floor']
        .filter(Boolean)
        .join('|');
      const p = m.channel.profile;
      return `${m.id};${m.channel.name};${m.channel.uuid};${p.callerIdName};${p.callerIdNumber};${flags};${m.volumeIn};${m.volumeOut};${m.energy}\n`;
    })
    .join('');
}

function eachMember(
  conf: Conference,
  who: string | undefined,
  verb: string,
  act: (m: Member) => void,
): string {
  if (!who) return `-ERR Usage: ${verb} <[member_id|all|last|non_moderator]>\n`;
  let targets: Member[];
  if (who === 'all' || who === 'non_moderator') targets = [...conf.members.values()];
  else if (who === 'last') targets = [...conf.members.values()].slice(-1);
  else {
    const m = conf.members.get(Number(who));
    if (!m) return `-ERR Non-Existant ID ${who}\n`;
    targets = [m];
  }
  return targets
    .map((m) => {
      act(m);
      return `+OK ${verb} ${m.id}\n`;
    })
    .join('');
}

function setFlag(conf: Conference, m: Member, sub: string): void {
  if (sub === 'mute' || sub === 'unmute') m.canSpeak = sub === 'unmute';
  else m.canHear = sub === 'undeaf';
  // mod_conference fires one frame later from the member's thread
  conf.fireMemberLater(m, `${sub}-member`, 20);
}

function volume(conf: Conference, sub: string, rest: string[]): string {
  const m = conf.members.get(Number(rest[0]));
  if (!m) return `-ERR Non-Existant ID ${rest[0] ?? ''}\n`;
  const label = sub === 'volume_in' ? 'IN' : 'OUT';
  if (rest[1] !== undefined) {
    const level = Math.max(-4, Math.min(4, Math.trunc(Number(rest[1]) || 0)));
    if (sub === 'volume_in') m.volumeIn = level;
    else m.volumeOut = level;
    conf.fireMember(m, sub === 'volume_in' ? 'volume-in-member' : 'volume-out-member');
  }
  return `+OK Volume ${label} ${m.id} = ${sub === 'volume_in' ? m.volumeIn : m.volumeOut}\n`;
}

async function play(conf: Conference, rest: string[]): Promise<string> {
  const [file, opt] = rest;
  if (!file) return '-ERR (play) no file specified.\n';
  const memberId = opt && /^\d+$/.test(opt) ? Number(opt) : undefined;
  if (memberId !== undefined) {
    const m = conf.members.get(memberId);
    if (!m) return `-ERR Member: ${memberId} not found.\n`;
    const ok = await m.files.play(file, false);
    return ok
      ? `+OK (play) Playing file ${file} to member ${memberId}\n`
      : `-ERR (play) File: ${file} not found.\n`;
  }
  const ok = await conf.files.play(file, opt === 'async');
  return ok ? `+OK (play) Playing file ${file}\n` : `-ERR (play) File: ${file} not found.\n`;
}

function roomJson(conf: Conference): Record<string, unknown> {
  return {
    conference_name: conf.name,
    member_count: conf.size,
    ghost_count: 0,
    rate: 8000,
    run_time: Math.floor((Date.now() - conf.createdAt) / 1000),
    conference_uuid: conf.uuid,
    canvas_count: 0,
    max_bw_in: 0,
    force_bw_in: 0,
    video_floor_packets: 0,
    locked: false,
    destruct: false,
    wait_mod: false,
    audio_always: false,
    running: true,
    answered: true,
    enforce_min: true,
    bridge_to: false,
    dynamic: true,
    exit_sound: true,
    enter_sound: true,
    recording: false,
    video_bridge: false,
    video_floor_only: false,
    video_rfc4579: false,
    variables: {},
    members: [...conf.members.values()].reverse().map((m) => ({
      type: 'caller',
      id: m.id,
      flags: {
        can_hear: m.canHear,
        can_see: true,
        can_speak: m.canSpeak,
        hold: false,
        mute_detect: false,
        talking: false,
        has_video: false,
        video_bridge: false,
        has_floor: conf.hasFloor(m),
        is_moderator: false,
        end_conference: false,
        mandatory_member_end_conference: false,
        pass_digits: false,
      },
      uuid: m.channel.uuid,
      caller_id_name: m.channel.profile.callerIdName,
      caller_id_number: m.channel.profile.callerIdNumber,
      join_time: 0,
      last_talking: 0,
      energy: m.energy,
      volume_in: m.volumeIn,
      volume_out: m.volumeOut,
      'output-volume': m.volumeOut,
      'input-volume': m.volumeIn,
    })),
  };
}
