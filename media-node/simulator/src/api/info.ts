// status, version, show channels|calls, uuid_dump: read-only views of the simulated switch.
import type { SimContext } from '../core/context.js';
import type { Channel } from '../core/channel.js';
import { channelHeaders } from '../core/channel-headers.js';
import { toJsonBody, toPlainBody } from '../esl/event.js';
import type { ApiHandler } from './types.js';
import { NO_CHANNEL } from './channel-commands.js';

export const VERSION = '1.10.12-release git a88d069 2024-08-02 21:02:27Z 64bit';

export function upTime(ms: number): string {
  const s = Math.floor(ms / 1000);
  return (
    `0 years, ${Math.floor(s / 86400)} days, ${Math.floor(s / 3600) % 24} hours, ` +
    `${Math.floor(s / 60) % 60} minutes, ${s % 60} seconds, ${Math.floor(ms % 1000)} milliseconds, 0 microseconds`
  );
}

export function statusText(ctx: SimContext, sessionsSinceStart: number): string {
  const n = ctx.channels.size;
  return (
    `UP ${upTime(Date.now() - ctx.identity.startedAt)}\n` +
    `FreeSWITCH (Version ${VERSION}) is ready\n` +
    `${sessionsSinceStart} session(s) since startup\n` +
    `${n} session(s) - peak ${n}, last 5min ${n} \n` +
    `0 session(s) per Sec out of max 30, peak 0, last 5min 0 \n` +
    `1000 session(s) max\nmin idle cpu 0.00/99.90\nCurrent Stack Size/Max 240K/8192K\n`
  );
}

function channelRow(ch: Channel): Record<string, string> {
  const created = Math.floor(ch.times.created / 1_000_000);
  const apps = ch.executor.running();
  return {
    uuid: ch.uuid,
    direction: ch.profile.direction,
    created: new Date(created * 1000).toISOString().replace('T', ' ').slice(0, 19),
    created_epoch: String(created),
    name: ch.name,
    state: ch.state,
    cid_name: ch.profile.callerIdName,
    cid_num: ch.profile.callerIdNumber,
    ip_addr: '',
    dest: ch.profile.destination,
    application: apps.at(-1) ?? '',
    application_data: ch.vars.get('current_application_data') ?? '',
    dialplan: ch.profile.dialplan,
    context: ch.profile.context,
    read_codec: 'L16',
    read_rate: '8000',
    read_bit_rate: '128000',
    write_codec: 'L16',
    write_rate: '8000',
    write_bit_rate: '128000',
    secure: '',
    hostname: '',
    presence_id: '',
    presence_data: '',
    accountcode: '',
    callstate: ch.callState,
    callee_name: ch.profile.calleeIdName,
    callee_num: ch.profile.calleeIdNumber,
    callee_direction: '',
    call_uuid: ch.uuid,
    sent_callee_name: '',
    sent_callee_num: '',
    initial_cid_name: ch.profile.origCallerIdName,
    initial_cid_num: ch.profile.origCallerIdNumber,
    initial_ip_addr: '',
    initial_dest: ch.profile.destination,
    initial_dialplan: ch.profile.dialplan,
    initial_context: ch.profile.context,
  };
}

export const show: ApiHandler = (ctx, arg) => {
  const argv = arg.trim().split(/\s+/);
  const what = argv[0] ?? '';
  if (what !== 'channels' && what !== 'calls') return '-USAGE: channels|calls [as json]\n';
  const rows = [...ctx.channels.values()].filter((c) => c.alive).map(channelRow);
  if (argv.includes('count')) return `\n${rows.length} total.\n`;
  if (argv.includes('json')) {
    return rows.length === 0
      ? '{"row_count": 0}\n'
      : JSON.stringify({ row_count: rows.length, rows }) + '\n';
  }
  const cols = rows[0] ? Object.keys(rows[0]) : ['uuid', 'direction', 'created', 'name', 'state'];
  const head = cols.join(',');
  const lines = rows.map((r) => cols.map((c) => r[c]).join(','));
  return `${head}\n${lines.join('\n')}${lines.length ? '\n' : ''}\n${rows.length} total.\n`;
};

export const uuidDump: ApiHandler = (ctx, arg) => {
  const [uuid = '', format = 'txt'] = arg.trim().split(/\s+/);
  const ch = ctx.channels.get(uuid);
  if (!ch) return NO_CHANNEL;
  const ev = ctx.createEvent('CHANNEL_DATA');
  ev.headers.push(...channelHeaders(ch, true));
  return format === 'json' ? toJsonBody(ev) : toPlainBody(ev);
};
