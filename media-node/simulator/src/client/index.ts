// What drives a simulator (or a FreeSWITCH) from outside, for the tests and the benchmark
// (package subpath @voicegw/simulator/client): an event-socket client on a bare socket, the keyed
// mailbox its events are awaited through, and a helper for the simulator's control API.
export { control } from './control.js';
export { EslClient, name, type EslClientOptions } from './esl-client.js';
export type { Ev } from './frames.js';
export { KeyedMailbox } from './mailbox.js';
