// Calls and requests as the end-to-end tests make them, on a stack from useStack.
import type { FsEvent } from '../../src/esl/event.js';
import type { MediaNode } from '../../src/index.js';
import { mobile, type SimControl, type Stack, type Tenant } from './harness.js';

/** A media node with the simulator that it drives (the stack's own, or one of startNode's). */
export interface NodeOnSim {
  readonly node: MediaNode;
  readonly control: SimControl;
}

/** A call: its simulator channel and the session that the node made of it. */
export interface Call {
  readonly uuid: string;
  readonly session: string;
}

/** An inbound call from `caller` to `did` on `on` (the stack's node by default), once call.new is out. */
export async function inboundCall(
  stack: Stack,
  did: string,
  on: NodeOnSim = stack,
  caller = mobile(),
): Promise<Call> {
  const uuid = await on.control.call(did, caller);
  const session = `${on.node.prefix}-${uuid}`;
  await stack.events.of(session, 'call.new');
  return { uuid, session };
}

/** An inbound call that `tenant` answered: call.answered and the answer's command.result are out. */
export async function answeredCall(
  stack: Stack,
  tenant: Tenant,
  did: string,
  on: NodeOnSim = stack,
): Promise<Call> {
  const call = await inboundCall(stack, did, on);
  await stack.command(tenant, call.session, 'answer');
  await stack.events.of(call.session, 'call.answered');
  await stack.events.of(call.session, 'command.result');
  return call;
}

/** A request to the api as `tenant`; `body` is sent as JSON. */
export async function request(
  stack: Stack,
  tenant: Tenant,
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await stack.api.inject({
    method,
    url,
    headers: {
      ...tenant.headers,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  return { status: res.statusCode, body: res.json<Record<string, unknown>>() };
}

/** The first event of the node's FreeSWITCH matching `match`, from now on. */
export function fsEvent(
  node: MediaNode,
  match: (e: FsEvent) => boolean,
  timeoutMs = 5000,
): Promise<FsEvent> {
  return new Promise<FsEvent>((resolve, reject) => {
    const timer = setTimeout(() => {
      node.esl.off('event', onEvent);
      reject(new Error('no such FreeSWITCH event'));
    }, timeoutMs);
    const onEvent = (e: FsEvent): void => {
      if (!match(e)) return;
      clearTimeout(timer);
      node.esl.off('event', onEvent);
      resolve(e);
    };
    node.esl.on('event', onEvent);
  });
}
