import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  commandsFor,
  createTenant,
  json,
  liveNode,
  seedSession,
  startApi,
  type TestApi,
  type TestTenant,
} from './helpers.js';

let api: TestApi;
let tenant: TestTenant;
let node: string;

beforeAll(async () => {
  api = await startApi();
  tenant = await createTenant(api);
  node = await liveNode(api);
});
afterAll(() => api.close());

const post = (
  session: string,
  command: string,
  body?: unknown,
  headers: Record<string, string> = {},
) =>
  api.app.inject({
    method: 'POST',
    url: `/api/v1/sessions/${session}/commands/${command}`,
    headers: { ...tenant.headers, ...(body === undefined ? {} : json), ...headers },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

describe('session commands', () => {
  it('answer is accepted with the deferred envelope and appended to the owning node stream', async () => {
    const session = await seedSession(api, tenant, node);
    const res = await post(session, 'answer');
    expect(res.statusCode).toBe(202);
    const body = res.json();
    expect(body).toEqual({
      operation_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'in_progress',
      timeout_ms: 2000,
    });
    const commands = await commandsFor(api, node);
    expect(commands.at(-1)).toMatchObject({
      kind: 'session',
      command: 'answer',
      session_id: session,
      app_id: tenant.appId,
      operation_id: body.operation_id,
    });
  });
});
