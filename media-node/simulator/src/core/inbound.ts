// An inbound SIP call reaching a dialplan that parks it (trace i's inbound leg): CS_NEW,
// CS_INIT, CHANNEL_CREATE, CS_ROUTING, CS_EXECUTE, CHANNEL_EXECUTE park, CHANNEL_PARK. The call
// stays unanswered (Answer-State ringing) until the media node answers it.
import { randomUUID } from 'node:crypto';
import { Channel, type ChannelHost } from './channel.js';
import type { Identity } from './event-factory.js';

/** What placing an inbound call uses of the switch (a SimContext is one). */
export interface InboundHost extends ChannelHost {
  readonly identity: Pick<Identity, 'ipv4'>;
}

export interface InboundCall {
  readonly to: string;
  readonly from: string;
  readonly appId?: string | undefined;
  /** Where the call comes from (a trunk peer); default: this switch's own address. */
  readonly fromHost?: string;
  readonly fromName?: string;
  /** More channel variables (the `sip_h_X-*` of a trunk call's X- headers). */
  readonly vars?: ReadonlyArray<readonly [string, string]>;
}

export function placeInboundCall(ctx: InboundHost, call: InboundCall): Channel {
  const uuid = randomUUID();
  const name = `sofia/external/${call.from}@${call.fromHost ?? ctx.identity.ipv4}`;
  const vars: Array<readonly [string, string]> = [
    ['direction', 'inbound'],
    ['uuid', uuid],
    ['session_id', String(ctx.channels.size + 1)],
    ['sip_from_user', call.from],
    ['sip_to_user', call.to],
    ['sip_req_user', call.to],
    ['sip_call_id', `${randomUUID()}@sim`],
    ['channel_name', name],
    ['read_codec', 'PCMU'],
    ['read_rate', '8000'],
    ['write_codec', 'PCMU'],
    ['write_rate', '8000'],
    ['caller_id_number', call.from],
    ['destination_number', call.to],
  ];
  if (call.appId) vars.push(['voicegw_app_id', call.appId]);
  vars.push(...(call.vars ?? []));
  const ch = new Channel(ctx, {
    uuid,
    name,
    profile: {
      direction: 'inbound',
      callerIdName: call.fromName ?? call.from,
      callerIdNumber: call.from,
      origCallerIdName: call.fromName ?? call.from,
      origCallerIdNumber: call.from,
      calleeIdName: '',
      calleeIdNumber: '',
      ani: call.from,
      destination: call.to,
      source: 'mod_sofia',
      context: 'public',
      dialplan: 'XML',
    },
    vars,
  });
  ch.setState('CS_NEW');
  ch.setState('CS_INIT');
  ch.fire('CHANNEL_CREATE');
  ch.hitDialplan = true;
  ch.setState('CS_ROUTING');
  ch.setState('CS_EXECUTE');
  void ch.executor.runSequence([{ app: 'park', arg: '' }]);
  return ch;
}
