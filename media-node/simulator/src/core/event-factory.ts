// Builds the common head of every event (Core-UUID … Event-Sequence) and knows where
// FreeSWITCH says each event comes from, so the headers look like the traces.
import type { FsEvent, Header } from '../esl/event.js';
import { localStamp, nowMicros } from './channel-headers.js';

/** Who this switch is: stamped on every event (Core-UUID, FreeSWITCH-Hostname, …). */
export interface Identity {
  readonly coreUuid: string;
  readonly hostname: string;
  readonly ipv4: string;
  readonly ipv6: string;
  readonly startedAt: number;
}

/** Where an event claims to come from (file, function, line), as FreeSWITCH stamps it. */
export type CallingSite = readonly [file: string, func: string, line: number];

const SITES: Record<string, CallingSite> = {
  API: ['switch_loadable_module.c', 'switch_api_execute', 2954],
  BACKGROUND_JOB: ['mod_event_socket.c', 'api_exec', 1572],
  HEARTBEAT: ['switch_core.c', 'send_heartbeat', 95],
  CHANNEL_UUID: ['switch_core_session.c', 'switch_core_session_set_uuid', 2051],
  CHANNEL_OUTGOING: ['switch_core_session.c', 'switch_core_session_outgoing_channel', 745],
  CHANNEL_STATE: ['switch_channel.c', 'switch_channel_perform_set_running_state', 2243],
  CHANNEL_CREATE: ['switch_core_state_machine.c', 'switch_core_session_run', 626],
  CHANNEL_ORIGINATE: ['switch_ivr_originate.c', 'switch_ivr_originate', 3029],
  CHANNEL_EXECUTE: ['switch_core_session.c', 'switch_core_session_exec', 2882],
  CHANNEL_EXECUTE_COMPLETE: ['switch_core_session.c', 'switch_core_session_exec', 2917],
  CHANNEL_ANSWER: ['switch_channel.c', 'switch_channel_perform_mark_answered', 3837],
  CHANNEL_PROGRESS: ['switch_channel.c', 'switch_channel_perform_mark_ring_ready_value', 3488],
  CHANNEL_PROGRESS_MEDIA: ['switch_channel.c', 'switch_channel_perform_mark_pre_answered', 3615],
  CHANNEL_PARK: ['switch_ivr.c', 'switch_ivr_park', 968],
  CHANNEL_UNPARK: ['switch_ivr.c', 'switch_ivr_park', 1161],
  CHANNEL_HANGUP: ['switch_channel.c', 'switch_channel_perform_hangup', 3323],
  CHANNEL_HANGUP_COMPLETE: [
    'switch_core_state_machine.c',
    'switch_core_session_reporting_state',
    943,
  ],
  CHANNEL_DESTROY: ['switch_core_session.c', 'switch_core_session_perform_destroy', 1602],
  PRIVATE_COMMAND: ['switch_ivr.c', 'switch_ivr_parse_event', 620],
  PLAYBACK_START: ['switch_ivr_play_say.c', 'switch_ivr_play_file', 1510],
  PLAYBACK_STOP: ['switch_ivr_play_say.c', 'switch_ivr_play_file', 2020],
  DTMF: ['switch_channel.c', 'switch_channel_dequeue_dtmf', 677],
  RECORD_START: ['switch_ivr_async.c', 'record_callback', 1360],
  RECORD_STOP: ['switch_ivr_async.c', 'send_record_stop_event', 1240],
  MEDIA_BUG_START: ['switch_core_media_bug.c', 'switch_core_media_bug_add', 1001],
  MEDIA_BUG_STOP: ['switch_core_media_bug.c', 'switch_core_media_bug_close', 1216],
};

export class EventFactory {
  private sequence = 0;

  constructor(private readonly identity: Identity) {}

  /** An event fired to nobody still takes its number, as in FreeSWITCH. */
  skip(): void {
    this.sequence++;
  }

  create(name: string, site?: CallingSite, subclass?: string): FsEvent {
    const ms = Date.now();
    const [file, func, line] = site ?? SITES[name] ?? ['switch_event.c', 'switch_event_fire', 1];
    const headers: Header[] = [];
    if (subclass) headers.push(['Event-Subclass', subclass]);
    headers.push(
      ['Event-Name', name],
      ['Core-UUID', this.identity.coreUuid],
      ['FreeSWITCH-Hostname', this.identity.hostname],
      ['FreeSWITCH-Switchname', this.identity.hostname],
      ['FreeSWITCH-IPv4', this.identity.ipv4],
      ['FreeSWITCH-IPv6', this.identity.ipv6],
      ['Event-Date-Local', localStamp(ms)],
      ['Event-Date-GMT', new Date(ms).toUTCString()],
      ['Event-Date-Timestamp', String(nowMicros())],
      ['Event-Calling-File', file],
      ['Event-Calling-Function', func],
      ['Event-Calling-Line-Number', String(line)],
      ['Event-Sequence', String(++this.sequence)],
    );
    return { name, headers };
  }
}
