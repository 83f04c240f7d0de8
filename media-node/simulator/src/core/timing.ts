// Delays that make the simulator's timing look like FreeSWITCH's (measured in the traces).
// FreeSWITCH is fast: most steps take one 20 ms media frame, not seconds.

/** A queued sendmsg reaches the channel thread on its next 20 ms frame. */
export const MESSAGE_LATENCY_MS = 20;
/** uuid_kill: CHANNEL_HANGUP at once, the rest of the teardown one frame later. */
export const TEARDOWN_DELAY_MS = 20;
/** Gap between files of one playback joined with the playback delimiter. */
export const FILE_GAP_MS = 260;
/** Default first-ring delay of an outbound leg before CHANNEL_PROGRESS. */
export const RING_DELAY_MS = 20;
/** Spacing of digits sent through the control API (RFC 2833 events of a real phone). */
export const DTMF_SPACING_MS = 80;
/** Default DTMF duration in samples at 8 kHz (2000 = 250 ms), as the traces show. */
export const DTMF_DEFAULT_SAMPLES = 2000;
/** HEARTBEAT interval of a default FreeSWITCH. */
export const HEARTBEAT_MS = 20_000;

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
