// The media node as a library: the entrypoint (main.ts), tests and the benchmark start it here.
export { startMediaNode } from './node.js';
export type { MediaNode, MediaNodeOptions, CloseOptions } from './node.js';
export { MediaNodeEnv, loadMediaNodeConfig } from './config.js';
export type { MediaNodeConfig } from './config.js';
export { mapHangupCause } from './session/causes.js';
export { NODE_SUBSCRIPTION } from './esl/event.js';
export { encodeL16, decodeToL16, decodeSample } from './media-stream/g711.js';
export { Pacer } from './media-stream/pacer.js';
export { Playout, type PlayoutSink } from './media-stream/playout.js';
