import { hopTrace, monotonicMs } from '@voicegw/shared';
import type { EslClient } from '@voicegw/simulator/client';
import type { Recorder } from '../lib/task-load.js';
import { later, type LiveCall } from './flows.js';
import type { Gateway } from './stack.js';
import type { Teams } from './teams.js';

/**
 * A bridge of two answered calls and its undoing, both sides. Each is timed by the load
 * generator from its first write to its read of what says the commanded call is bridged: the
 * `call.bridged` of the commanded session on the ingest stream (what the webhook dispatcher
 * reads; no dispatcher runs), or the CHANNEL_BRIDGE of the same channel on the bare socket.
 * Both sides then undo the bridge as the media node's `unbridge` does (`uuid_park` of the other
 * party, both parking) before the pair rests and is bridged again. A pair whose task failed is
 * not given back: its state is unknown.
 */

/**
 * Rest between two uses of a pair: the api refuses a second `bridge` on a session within
 * 1000 ms of its last bridge, unbridge or transfer (the `connect` cooldown), plus a margin.
 */
export const PAIR_REST_MS = 1100;

/** The step a task records when it had to wait for a rested pair. */
export const PAIR_WAIT = 'pair wait';

/** The variables the media node sets on both calls first, so that each parks when the other goes. */
const STAY = { park_after_bridge: 'true', hangup_after_bridge: 'false' };

/** The next pair; a wait for one (none rested yet) is recorded, and counts in the latency. */
async function pairOf(pairs: Teams, record: Recorder): Promise<[LiveCall, LiveCall]> {
  const ready = pairs.ready;
  const t0 = performance.now();
  const [a, b] = await pairs.take();
  if (!ready) record(PAIR_WAIT, performance.now() - t0);
  if (!a || !b) throw new Error('a pair needs two calls');
  return [a, b];
}

/**
 * Through the gateway: `bridge` on A with B → A's `call.bridged` (`bridged`) and `command.result`,
 * B's `call.bridged`; then `unbridge` on B (A is in its cooldown) → both `call.unbridged`.
 */
export async function gatewayBridge(gw: Gateway, pairs: Teams, record: Recorder): Promise<void> {
  const t0 = performance.now();
  const [a, b] = await pairOf(pairs, record);
  const command = (id: string, name: string, body: object) =>
    gw.http.expect(202, 'POST', `/api/v1/sessions/${id}/commands/${name}`, a.app?.headers, body);
  const bridged = later(gw.events.once(`call.bridged:${a.id}`));
  const peerBridged = later(gw.events.once(`call.bridged:${b.id}`));
  const sent = monotonicMs();
  const reply = await command(a.id, 'bridge', { session_uuid: b.id });
  record('accepted', performance.now() - t0);
  hopTrace.mark(String(reply.operation_id), 'bench.sent', sent);
  const event = await bridged;
  record('bridged', performance.now() - t0);
  if (event.peer_session_uuid !== b.id) throw new Error(`call.bridged ${JSON.stringify(event)}`);
  await succeeded(gw, reply, 'bridge');
  record('result', performance.now() - t0);
  // unbridge answers 409 bridge_pending until B's side is bridged too.
  await peerBridged;
  record('peer bridged', performance.now() - t0);

  const t1 = performance.now();
  const unbridged = [a, b].map((c) => later(gw.events.once(`call.unbridged:${c.id}`)));
  const undone = await command(b.id, 'unbridge', {});
  await Promise.all(unbridged);
  record('unbridged', performance.now() - t1);
  await succeeded(gw, undone, 'unbridge');
  pairs.give([a, b]);
}

/** The command.result of a 202's operation, which must say success. */
async function succeeded(gw: Gateway, reply: Record<string, unknown>, name: string) {
  const result = await gw.events.once(`command.result:op:${String(reply.operation_id)}`);
  if (result.success !== true) throw new Error(`${name}: ${JSON.stringify(result)}`);
}

/**
 * On the bare event socket, as the media node drives FreeSWITCH: STAY on both channels
 * (`uuid_setvar`, one at a time per channel, both channels at once), `uuid_bridge a b` → A's
 * CHANNEL_BRIDGE (`bridged`; FreeSWITCH reports it on the originator only, naming both); then
 * `uuid_park b` → A's CHANNEL_UNBRIDGE.
 */
export async function rawBridge(esl: EslClient, pairs: Teams, record: Recorder): Promise<void> {
  const t0 = performance.now();
  const [a, b] = await pairOf(pairs, record);
  const bridged = later(esl.once(`CHANNEL_BRIDGE:${a.id}`));
  await Promise.all([stay(esl, a.id), stay(esl, b.id)]);
  await expectOk(esl, `uuid_bridge ${a.id} ${b.id}`);
  record('accepted', performance.now() - t0);
  await bridged;
  record('bridged', performance.now() - t0);

  const t1 = performance.now();
  const unbridged = later(esl.once(`CHANNEL_UNBRIDGE:${a.id}`));
  await expectOk(esl, `uuid_park ${b.id}`);
  await unbridged;
  record('unbridged', performance.now() - t1);
  pairs.give([a, b]);
}

async function stay(esl: EslClient, uuid: string): Promise<void> {
  for (const [name, value] of Object.entries(STAY)) {
    await expectOk(esl, `uuid_setvar ${uuid} ${name} ${value}`);
  }
}

async function expectOk(esl: EslClient, cmd: string): Promise<void> {
  const reply = await esl.api(cmd);
  if (!reply.startsWith('+OK')) throw new Error(`${cmd.split(' ')[0]}: ${reply.trim()}`);
}
