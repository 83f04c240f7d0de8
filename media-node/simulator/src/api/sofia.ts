// `sofia status gateway <name>`, answered as mod_sofia's cmd_status does (mod_sofia.c): the
// gateway's fields between two rules, or `Invalid Gateway!` for a name no profile has. The
// simulator's gateways are SIM_GATEWAYS (default `pstn`); they never register (NOREG) and are up.
import type { SimContext } from '../core/context.js';

const RULE = '='.repeat(97);

export function sofiaApi(ctx: SimContext, arg: string): string {
  const [command = '', kind = '', name = ''] = arg.trim().split(/\s+/);
  if (command !== 'status' || kind !== 'gateway' || !name) {
    return '-ERR the simulator answers only `sofia status gateway <name>`\n';
  }
  if (!ctx.gateways.has(name)) return 'Invalid Gateway!\n';
  const host = ctx.identity.ipv4;
  const fields: Array<[string, string]> = [
    ['Name    ', name],
    ['Profile ', 'external'],
    ['Scheme  ', 'Digest'],
    ['Realm   ', name],
    ['Username', 'voicegw'],
    ['Password', 'no'],
    ['From    ', `<sip:voicegw@${name}>`],
    ['Contact ', `<sip:gw+${name}@${host}:5080;transport=udp;gw=${name}>`],
    ['Exten   ', 'voicegw'],
    ['To      ', `sip:voicegw@${name}`],
    ['Proxy   ', `sip:${name}`],
    ['Context ', 'public'],
    ['Expires ', '3600'],
    ['Freq    ', '3600'],
    ['Ping    ', '0'],
    ['PingFreq', '0'],
    ['PingTime', '0.00'],
    ['PingState', '0/0/0'],
    ['State   ', 'NOREG'],
    ['Status  ', 'UP'],
    ['Uptime  ', `${Math.floor((Date.now() - ctx.identity.startedAt) / 1000)}s`],
    ['CallsIN ', '0'],
    ['CallsOUT', '0'],
    ['FailedCallsIN', '0'],
    ['FailedCallsOUT', '0'],
  ];
  return `${RULE}\n${fields.map(([k, v]) => `${k}\t${v}\n`).join('')}${RULE}\n`;
}
