import { randomUUID } from 'node:crypto';
import { hopTrace, monotonicMs } from '@voicegw/shared';
import type { EslClient } from '@voicegw/simulator/client';
import type { JsonClient } from '../lib/http-json.js';
import type { Recorder } from '../lib/task-load.js';
import type { BenchApp, Gateway } from './stack.js';

/**
 * The operations both sides of a comparison perform: through the gateway (simulator → media
 * node → Redis events, commands through the api) and on the simulator alone over a bare event
 * socket (the baseline: what any program driving FreeSWITCH directly gets). Step latencies are
 * recorded under the same names on both sides.
 */

/** A live call: its session id (gateway) or channel uuid (baseline), and its app. */
export interface LiveCall {
  readonly id: string;
  readonly app?: BenchApp;
}

const caller = (): string => `050${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;

/** A promise whose rejection nobody may await (the step before it failed): no unhandled error. */
export function later<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

async function placeCall(control: JsonClient, to: string): Promise<string> {
  const placed = await control.expect(201, 'POST', '/sim/calls', {}, { to, from: caller() });
  return String(placed.uuid);
}

/**
 * An inbound call through the gateway: placed in the simulator, taken by the media node
 * (`call.new`), answered through the api (`call.answered`), and hung up through the api
 * (`call.hangup`) unless `keep`.
 */
export async function gatewayCall(
  gw: Gateway,
  control: JsonClient,
  app: BenchApp,
  record: Recorder,
  keep = false,
): Promise<LiveCall> {
  const t0 = performance.now();
  const id = `${gw.prefix}-${await placeCall(control, app.did)}`;
  await gw.events.once(`call.new:${id}`);
  const t1 = performance.now();
  record('new', t1 - t0);
  const answered = later(gw.events.once(`call.answered:${id}`));
  const sent = monotonicMs();
  const reply = await gw.http.expect(
    202,
    'POST',
    `/api/v1/sessions/${id}/commands/answer`,
    app.headers,
  );
  hopTrace.mark(String(reply.operation_id), 'bench.sent', sent);
  await answered;
  const t2 = performance.now();
  record('answer', t2 - t1);
  if (!keep) await gatewayHangup(gw, { id, app }, record);
  return { id, app };
}

export async function gatewayHangup(gw: Gateway, call: LiveCall, record?: Recorder) {
  const t0 = performance.now();
  const ended = later(gw.events.once(`call.hangup:${call.id}`));
  await gw.http.expect(202, 'POST', `/api/v1/sessions/${call.id}/commands/hangup`, {
    ...call.app?.headers,
  });
  await ended;
  record?.('hangup', performance.now() - t0);
}

/**
 * A call as an application makes it, every step taken on the webhook of the one before: placed
 * in the simulator → `call.new` → `answer` → `call.answered` → `playback/start` of `promptUrl`
 * → `playback.stopped` (the prompt played to its end) → `hangup` → `call.hangup`.
 */
export async function promptCall(
  gw: Gateway,
  control: JsonClient,
  app: BenchApp,
  promptUrl: string,
  record: Recorder,
): Promise<void> {
  const t0 = performance.now();
  const id = `${gw.prefix}-${await placeCall(control, app.did)}`;
  await gw.events.once(`call.new:${id}`);
  const answered = later(gw.events.once(`call.answered:${id}`));
  await gw.http.expect(202, 'POST', `/api/v1/sessions/${id}/commands/answer`, app.headers);
  await answered;
  const played = later(gw.events.once(`playback.stopped:${id}`));
  await gw.http.expect(202, 'POST', `/api/v1/sessions/${id}/commands/playback/start`, app.headers, {
    urls: [promptUrl],
  });
  await played;
  await gatewayHangup(gw, { id, app });
  record('call', performance.now() - t0);
}

/** `answer` on a live call: POST → 202 (`accepted`) → its `command.result` (`executed`). */
export async function gatewayCommand(gw: Gateway, call: LiveCall, record: Recorder) {
  const t0 = performance.now();
  const sent = monotonicMs();
  const reply = await gw.http.expect(202, 'POST', `/api/v1/sessions/${call.id}/commands/answer`, {
    ...call.app?.headers,
  });
  record('accepted', performance.now() - t0);
  hopTrace.mark(String(reply.operation_id), 'bench.sent', sent);
  const result = await gw.events.once(`command.result:op:${String(reply.operation_id)}`);
  if (result.success !== true) throw new Error(`command.result ${JSON.stringify(result)}`);
  record('executed', performance.now() - t0);
}

/** The baseline call: placed in the simulator, parked, answered and killed over the socket. */
export async function rawCall(
  esl: EslClient,
  control: JsonClient,
  record: Recorder,
  keep = false,
): Promise<LiveCall> {
  const t0 = performance.now();
  const uuid = await placeCall(control, '0730000000');
  await esl.once(`CHANNEL_PARK:${uuid}`);
  const t1 = performance.now();
  record('new', t1 - t0);
  const answered = later(esl.once(`CHANNEL_ANSWER:${uuid}`));
  await esl.execute(uuid, 'answer', '', randomUUID(), true);
  await answered;
  const t2 = performance.now();
  record('answer', t2 - t1);
  if (!keep) {
    const ended = later(esl.once(`CHANNEL_HANGUP_COMPLETE:${uuid}`));
    await esl.api(`uuid_kill ${uuid}`);
    await ended;
    record('hangup', performance.now() - t2);
  }
  return { id: uuid };
}

/** The baseline command: `sendmsg execute answer` (event-lock) → its EXECUTE_COMPLETE. */
export async function rawCommand(esl: EslClient, call: LiveCall, record: Recorder) {
  const t0 = performance.now();
  const appUuid = randomUUID();
  const done = later(esl.once(`CHANNEL_EXECUTE_COMPLETE:app:${appUuid}`));
  await esl.execute(call.id, 'answer', '', appUuid, true);
  const t1 = performance.now();
  record('accepted', t1 - t0);
  await done;
  const t2 = performance.now();
  record('confirmed', t2 - t1);
  record('executed', t2 - t0);
}

/** What `inParallel` did: the results of the items that succeeded, and the failures. */
export interface Settled<R> {
  readonly ok: R[];
  readonly failed: number;
  /** The first failures' messages. */
  readonly errors: string[];
}

/**
 * Runs `fn` over `items` with at most `concurrency` at once. A failing item is counted, not
 * thrown: opening a thousand calls should not end a run because one of them did not come up.
 */
export async function inParallel<T, R>(
  items: readonly T[],
  concurrency: number,
  fn: (item: T) => Promise<R>,
): Promise<Settled<R>> {
  const settled: Settled<R> = { ok: [], failed: 0, errors: [] };
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const item = items[next++] as T;
        try {
          settled.ok.push(await fn(item));
        } catch (err) {
          (settled as { failed: number }).failed++;
          if (settled.errors.length < 3) {
            settled.errors.push(err instanceof Error ? err.message : String(err));
          }
        }
      }
    }),
  );
  return settled;
}
