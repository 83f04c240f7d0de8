import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { adminRequest, ADMIN_KEY, useApi } from './helpers.js';

const api = useApi();

type Method = 'GET' | 'PUT' | 'DELETE';

const admin = (method: Method, url: string, payload?: string) =>
  adminRequest(api, method, url, undefined, payload);

async function newApp(): Promise<string> {
  const appId = `app_${randomBytes(4).toString('hex')}`;
  const res = await api.app.inject({
    method: 'POST',
    url: `/admin/apps/${appId}`,
    headers: { 'x-admin-api-key': ADMIN_KEY, 'content-type': 'application/json' },
    payload: '{}',
  });
  expect(res.statusCode).toBe(200);
  return appId;
}

const outcome = (res: Awaited<ReturnType<typeof admin>>) => ({
  status: res.statusCode,
  body: res.json<unknown>(),
});

/** A number with the given Israeli prefix (02..09 or 05x/07x) and 7 more digits, unique in this file. */
let sequence = 1_000_000;
const fresh = (prefix: string): string => `${prefix}${sequence++}`;

for (const kind of ['cids', 'dids'] as const) {
  const put = (appId: string, numbers: unknown) =>
    admin('PUT', `/admin/apps/${appId}/${kind}`, JSON.stringify(numbers));
  const list = (appId: string, numbers: string[]) => ({
    status: 200,
    body: { success: true, app_id: appId, [kind]: numbers },
  });

  describe(`/admin/apps/{app_id}/${kind}`, () => {
    it('PUT appends and answers the sorted list; GET returns it', async () => {
      const appId = await newApp();
      const [mobile, landline, voip] = [fresh('052'), fresh('03'), fresh('077')];
      expect(outcome(await put(appId, [mobile, landline]))).toEqual(
        list(appId, [landline, mobile]),
      );
      expect(outcome(await put(appId, [voip, mobile]))).toEqual(
        list(appId, [landline, mobile, voip]),
      );
      expect(outcome(await admin('GET', `/admin/apps/${appId}/${kind}`))).toEqual(
        list(appId, [landline, mobile, voip]),
      );
    });

    it('GET of an app without numbers answers an empty list', async () => {
      const appId = await newApp();
      expect(outcome(await admin('GET', `/admin/apps/${appId}/${kind}`))).toEqual(list(appId, []));
    });

    it('PUT of an empty array changes nothing', async () => {
      const appId = await newApp();
      const number = fresh('058');
      await put(appId, [number]);
      expect(outcome(await put(appId, []))).toEqual(list(appId, [number]));
    });

    it('DELETE removes one number and answers the remaining list', async () => {
      const appId = await newApp();
      const [gone, kept] = [fresh('050'), fresh('051')];
      await put(appId, [gone, kept]);
      expect(outcome(await admin('DELETE', `/admin/apps/${appId}/${kind}/${gone}`))).toEqual(
        list(appId, [kept]),
      );
      expect(outcome(await admin('GET', `/admin/apps/${appId}/${kind}`))).toEqual(
        list(appId, [kept]),
      );
    });

    it('DELETE of a number not on the list answers 404', async () => {
      const appId = await newApp();
      await put(appId, [fresh('050')]);
      const res = await admin('DELETE', `/admin/apps/${appId}/${kind}/${fresh('050')}`);
      expect(outcome(res)).toEqual({
        status: 404,
        body:
          kind === 'cids'
            ? { success: false, error: 'Caller ID not found', code: 'cid_not_found' }
            : { success: false, error: 'DID not found', code: 'did_not_found' },
      });
    });

    it.each([
      ['GET', undefined],
      ['PUT', '["0501234567"]'],
      ['DELETE', undefined],
    ] as const)('%s for an unknown app answers 404 App not found', async (method, payload) => {
      const appId = `app_${randomBytes(4).toString('hex')}`;
      const url = `/admin/apps/${appId}/${kind}${method === 'DELETE' ? '/0501234567' : ''}`;
      expect(outcome(await admin(method, url, payload))).toEqual({
        status: 404,
        body: { success: false, app_id: appId, error: 'App not found', code: 'app_not_found' },
      });
      // No list was left behind for an app that does not exist.
      expect(await api.redis.exists(api.keys.appCids(appId), api.keys.appDids(appId))).toBe(0);
    });

    it.each([
      ['a number in international format', ['+972501234567']],
      ['a mobile prefix that does not exist (056)', ['0561234567']],
      ['a landline number one digit short', ['03123456']],
      ['a mobile number one digit long', ['05012345678']],
      ['letters', ['05012345ab']],
    ])('PUT with %s answers 400 and adds nothing', async (_name, numbers) => {
      const appId = await newApp();
      const res = await put(appId, [fresh('053'), ...numbers]);
      expect(outcome(res)).toEqual({
        status: 400,
        body: {
          success: false,
          error: `Invalid number '${numbers[0]}': Israeli domestic format required`,
          code: 'validation_failed',
        },
      });
      expect(outcome(await admin('GET', `/admin/apps/${appId}/${kind}`))).toEqual(list(appId, []));
    });

    it.each([
      ['an object', { numbers: ['0501234567'] }, 'body must be array'],
      ['a string', '0501234567', 'body must be array'],
      ['an array with a number', [501234567], '0 must be string'],
      [
        'more than 1000 entries',
        Array(1001).fill('0501234567'),
        'body must NOT have more than 1000 items',
      ],
    ])('PUT with %s answers 400', async (_name, body, error) => {
      const appId = await newApp();
      expect(outcome(await put(appId, body))).toEqual({
        status: 400,
        body: { success: false, error, code: 'validation_failed' },
      });
    });

    it('PUT with unparseable JSON answers 400 Invalid request body', async () => {
      const appId = await newApp();
      expect(outcome(await admin('PUT', `/admin/apps/${appId}/${kind}`, '["0501234567"'))).toEqual({
        status: 400,
        body: { success: false, error: 'Invalid request body', code: 'invalid_body' },
      });
    });

    it('PUT without a JSON content type answers 415', async () => {
      const appId = await newApp();
      const res = await api.app.inject({
        method: 'PUT',
        url: `/admin/apps/${appId}/${kind}`,
        headers: { 'x-admin-api-key': ADMIN_KEY },
        payload: '["0501234567"]',
      });
      expect(outcome(res)).toEqual({
        status: 415,
        body: {
          success: false,
          error: 'Content-Type must be application/json',
          code: 'unsupported_media_type',
        },
      });
    });
  });
}

describe('DID routing', () => {
  const putDids = (appId: string, dids: string[]) =>
    admin('PUT', `/admin/apps/${appId}/dids`, JSON.stringify(dids));

  it('a claimed DID is routed to its app in the global map', async () => {
    const appId = await newApp();
    const did = fresh('072');
    await putDids(appId, [did]);
    expect(await api.redis.hget(api.keys.didRoutes(), did)).toBe(appId);
  });

  it('claiming a DID routed to another app answers 409 and changes nothing', async () => {
    const [owner, other] = [await newApp(), await newApp()];
    const [taken, free] = [fresh('073'), fresh('074')];
    await putDids(owner, [taken]);
    const res = await putDids(other, [free, taken]);
    expect(outcome(res)).toEqual({
      status: 409,
      body: {
        success: false,
        error: 'DID is already routed to another application',
        code: 'did_taken',
        detail: { did: taken, app_id: owner },
      },
    });
    expect((await admin('GET', `/admin/apps/${other}/dids`)).json()).toMatchObject({ dids: [] });
    expect(await api.redis.hget(api.keys.didRoutes(), taken)).toBe(owner);
    expect(await api.redis.hget(api.keys.didRoutes(), free)).toBeNull();
  });

  it('claiming a DID the app already has is accepted', async () => {
    const appId = await newApp();
    const did = fresh('076');
    await putDids(appId, [did]);
    expect((await putDids(appId, [did])).statusCode).toBe(200);
  });

  it('of concurrent claims of one DID by many apps exactly one wins', async () => {
    const apps = await Promise.all(Array.from({ length: 10 }, () => newApp()));
    const did = fresh('077');
    const results = await Promise.all(apps.map((appId) => putDids(appId, [did])));
    const winners = apps.filter((_, i) => results[i]!.statusCode === 200);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.statusCode === 409)).toHaveLength(9);
    expect(await api.redis.hget(api.keys.didRoutes(), did)).toBe(winners[0]);
  });

  it('a released DID is unrouted and can be claimed by another app', async () => {
    const [first, second] = [await newApp(), await newApp()];
    const did = fresh('079');
    await putDids(first, [did]);
    expect((await admin('DELETE', `/admin/apps/${first}/dids/${did}`)).statusCode).toBe(200);
    expect(await api.redis.hget(api.keys.didRoutes(), did)).toBeNull();
    expect(outcome(await putDids(second, [did]))).toEqual({
      status: 200,
      body: { success: true, app_id: second, dids: [did] },
    });
  });

  it('deleting an app frees its DIDs for another app', async () => {
    const [first, second] = [await newApp(), await newApp()];
    const did = fresh('072');
    await putDids(first, [did]);
    expect((await admin('DELETE', `/admin/apps/${first}`)).statusCode).toBe(200);
    expect((await putDids(second, [did])).statusCode).toBe(200);
    expect(await api.redis.hget(api.keys.didRoutes(), did)).toBe(second);
  });

  it('caller IDs are not exclusive: two apps may list the same number', async () => {
    const [a, b] = [await newApp(), await newApp()];
    const cid = fresh('050');
    for (const appId of [a, b]) {
      const res = await admin('PUT', `/admin/apps/${appId}/cids`, JSON.stringify([cid]));
      expect(res.statusCode).toBe(200);
    }
  });
});
