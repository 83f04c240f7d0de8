import type { NodeContext } from '../context.js';
import type { StreamCounters } from './counters.js';
import type { MediaEndpoint } from './fs-endpoint.js';
import type { Pacer } from './pacer.js';
import type { StreamedSession } from './types.js';

/** What a media stream needs of the node, through the manager that holds it. */
export interface RelayHost {
  readonly node: NodeContext;
  readonly pacer: Pacer;
  readonly endpoint: MediaEndpoint;
  readonly count: StreamCounters;
  /** Where FreeSWITCH's module connects for this stream (the node's endpoint, on loopback). */
  freeswitchUrl(streamId: string): string;
  /** True while the session's own audio (a playback, a prompt, a conference) holds the call. */
  holding(sessionId: string): boolean;
  /** The stream is over: it leaves the registry. */
  released(stream: { readonly session: StreamedSession }): void;
}
