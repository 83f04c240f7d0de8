// A bridge leg that FreeSWITCH ended before the node hung it up (the far side ended it first):
// uuid_kill answers `-ERR No such channel!`, which is normal, so the node logs it at debug and
// warns of nothing. The session's node reaches its simulator through a proxy that holds back
// what FreeSWITCH sends, so the node learns of the leg's end only after asking to kill it.
import { captureLogger } from '@voicegw/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mobile, startStack, type Stack, type Tenant } from './harness.js';

const did = '0733340000';
const { log, lines } = captureLogger();
let stack: Stack;
let tenant: Tenant;

beforeAll(async () => {
  stack = await startStack({ viaProxy: true, logger: log });
  tenant = await stack.tenant({ dids: [did] });
});
afterAll(() => stack.close());

describe('a bridge leg its FreeSWITCH ended before the node hung it up', () => {
  it('is logged at debug as already gone, with no warning', async () => {
    const away = { node: stack.node, control: stack.control };
    const uuid = await away.control.call(did, mobile());
    const session = `${away.node.prefix}-${uuid}`;
    await stack.events.of(session, 'call.new');
    await stack.command(tenant, session, 'answer');
    await stack.events.of(session, 'call.answered');
    // With the call counted in its heartbeat, a new room goes to the idle second node.
    const host = await stack.startNode();
    await expect
      .poll(() => stack.redis.hget(stack.keys.nodeHeartbeat(away.node.prefix), 'active_sessions'))
      .toBe('1');
    const created = await stack.api.inject({
      method: 'POST',
      url: '/api/v1/conferences',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'leg-ended-first' }),
    });
    const room = created.json<{ room_id: string }>().room_id;
    expect(room.slice(0, 5)).toBe(host.node.prefix);
    await stack.command(tenant, session, 'conference/join', { room_id: room });
    await stack.events.of(session, 'conference.member.joined');
    const leg = (await away.control.calls()).find((c) => c.uuid !== uuid);
    if (!leg) throw new Error('no bridge leg on the session node');

    stack.proxy?.hold();
    // The session node's FreeSWITCH ends the leg (its CHANNEL_HANGUP is held back); the host
    // drops the member and relays it, and the node, still believing the leg alive, kills it.
    await away.control.hangup(leg.uuid);
    expect(await stack.events.of(session, 'conference.member.left')).toMatchObject({
      room_id: room,
    });
    stack.proxy?.release();

    await expect
      .poll(() => lines.filter((l) => l.leg === leg.uuid).map((l) => [l.level, l.msg]))
      .toEqual([[20, 'bridge leg already gone']]);
    expect(lines.filter((l) => l.level >= 40 && String(l.msg).includes('bridge leg'))).toEqual([]);
  });
});
