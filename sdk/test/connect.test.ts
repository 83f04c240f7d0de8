import { beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  createTenant,
  liveNode,
  seedSession,
  useApi,
  type TestTenant,
} from '../../api/test/helpers.js';
import {
  VoiceGateway,
  VoiceGatewayError,
  type CommandAccepted,
  type WebhookEvent,
} from '../src/index.js';

// bridge, unbridge and transfer through the SDK against the api listening on a port, its
// sessions seeded in Redis as a media node would have them (what the media node then does is
// tested with it): typed answers, typed refusals, typed events.

const api = useApi();
const from = '0721230000';
let baseUrl = '';
beforeAll(async () => {
  baseUrl = await api.app.listen({ port: 0, host: '127.0.0.1' });
});

/** An app of the test's own, `from` on its allow-list, and a live media node. */
async function connected(): Promise<{ gateway: VoiceGateway; tenant: TestTenant; node: string }> {
  const tenant = await createTenant(api);
  await api.redis.sadd(api.keys.appCids(tenant.appId), from);
  return {
    gateway: new VoiceGateway({ baseUrl, appId: tenant.appId, apiKey: tenant.apiKey }),
    tenant,
    node: await liveNode(api),
  };
}
const failure = (call: Promise<unknown>) => call.catch((e: unknown) => e);

describe('the session client', () => {
  it('bridge and unbridge answer the deferred envelope with the command_uid', async () => {
    const { gateway, tenant, node } = await connected();
    const [a, b] = await Promise.all(
      [1, 2].map(() => seedSession(api, tenant, node, { answered_at: Date.now() })),
    );
    const bridged = await gateway.sessions.bridge(a!, { session_uuid: b! });
    expect(bridged).toEqual({
      operation_id: expect.any(String),
      status: 'in_progress',
      timeout_ms: 2000,
      command_uid: expect.any(String),
    });
    expect(await api.redis.hget(api.keys.session(b!), 'bridge_uid')).toBe(bridged.command_uid);

    // As the media nodes do once FreeSWITCH has bridged them.
    for (const s of [a!, b!]) await api.redis.hset(api.keys.session(s), 'bridge_state', 'bridged');
    const separated = await gateway.sessions.unbridge(b!);
    expect(separated).toMatchObject({ status: 'in_progress', timeout_ms: 2000 });
    expectTypeOf(separated).toEqualTypeOf<CommandAccepted<'unbridge'>>();
  });

  it('transfer answers the new leg and the ring time; its refusals are typed errors', async () => {
    const { gateway, tenant, node } = await connected();
    const caller = await seedSession(api, tenant, node, { answered_at: Date.now() });
    const placed = await gateway.sessions.transfer(caller, {
      to: '0521234567',
      from,
      timeout_sec: 20,
    });
    expect(placed).toMatchObject({ timeout_ms: 22_000, peer_session_uuid: expect.any(String) });
    expectTypeOf(placed.peer_session_uuid).toEqualTypeOf<string>();
    expect(
      await api.redis.hget(api.keys.session(placed.peer_session_uuid), 'parent_session_uuid'),
    ).toBe(caller);

    const again = await failure(gateway.sessions.transfer(caller, { to: '0521234567', from }));
    expect(again).toBeInstanceOf(VoiceGatewayError);
    expect([(again as VoiceGatewayError).status, (again as VoiceGatewayError).body]).toEqual([
      409,
      {
        success: false,
        error: 'Session is already bridged; use unbridge first',
        code: 'already_bridged',
        detail: { session: 'self' },
      },
    ]);
    const other = await seedSession(api, tenant, node, { answered_at: Date.now() });
    const forbidden = await failure(
      gateway.sessions.transfer(other, { to: '0521234567', from: '0721239999' }),
    );
    expect((forbidden as VoiceGatewayError).code).toBe('cid_not_allowed');
    const alone = await failure(gateway.sessions.unbridge(other));
    expect([(alone as VoiceGatewayError).status, (alone as VoiceGatewayError).code]).toEqual([
      409,
      'not_bridged',
    ]);
  });
});

describe('the event types', () => {
  it('call.bridged, call.unbridged and a transfer’s command.result carry their fields', () => {
    expectTypeOf<WebhookEvent<'call.bridged'>>().toMatchTypeOf<{
      session_uuid: string;
      peer_session_uuid: string;
      command_uid: string;
    }>();
    expectTypeOf<WebhookEvent<'call.unbridged'>['reason']>().toEqualTypeOf<
      'unbridged' | 'peer_hangup' | 'hangup' | 'error'
    >();
    expectTypeOf<WebhookEvent<'command.result'>['outcome']>().toEqualTypeOf<
      'answered' | 'busy' | 'no_answer' | 'rejected' | 'failed' | undefined
    >();
    expectTypeOf<WebhookEvent<'session.dialing'>['parent_session_uuid']>().toEqualTypeOf<
      string | undefined
    >();
  });
});
