/*
 * The one place where the benchmark reaches into the media node workspace: the node through its
 * package entry, and the FreeSWITCH simulator, which has none (it is `media-node/sim/`, imported
 * by path as the media node's own tests and `npm start` do).
 */
export { loadMediaNodeConfig, startMediaNode } from '@voicegw/media-node';
export { startSimulator } from '../../media-node/sim/index.js';
export { makeToneWav } from '../../media-node/sim/media/wav.js';
