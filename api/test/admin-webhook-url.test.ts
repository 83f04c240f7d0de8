import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkWebhookUrl, isForbiddenAddress } from '../src/domain/webhook-url.js';
import { ADMIN_KEY, useApi, type TestApi } from './helpers.js';

const INVALID = 'webhook_url must be a valid http or https URL';
const HTTPS_REQUIRED = 'webhook_url must use https';
const UNRESOLVABLE = 'webhook_url host does not resolve';
const FORBIDDEN = 'webhook_url must not resolve to a private, loopback or link-local address';

/** Four apis, one per combination of ALLOW_HTTP_WEBHOOKS and ALLOW_LOCALHOST_WEBHOOKS. */
const flags = (http: boolean, local: boolean) => ({
  ALLOW_HTTP_WEBHOOKS: String(http),
  ALLOW_LOCALHOST_WEBHOOKS: String(local),
});
const apis: Record<'strict' | 'httpOnly' | 'localOnly' | 'open', TestApi> = {
  strict: useApi(flags(false, false)),
  httpOnly: useApi(flags(true, false)),
  localOnly: useApi(flags(false, true)),
  open: useApi(flags(true, true)),
};

async function postWebhook(api: TestApi, webhookUrl: string) {
  const appId = `app_${randomBytes(4).toString('hex')}`;
  const res = await api.app.inject({
    method: 'POST',
    url: `/admin/apps/${appId}`,
    headers: { 'x-admin-api-key': ADMIN_KEY, 'content-type': 'application/json' },
    payload: JSON.stringify({ webhook_url: webhookUrl }),
  });
  return { appId, status: res.statusCode, body: res.json<Record<string, unknown>>() };
}

const accepted = (appId: string, webhookUrl: string) => ({
  appId,
  status: 200,
  body: { success: true, app_id: appId, webhook_url: webhookUrl, rate_limit: 0 },
});
const rejected = (appId: string, error: string) => ({
  appId,
  status: 400,
  body: { success: false, error, code: 'invalid_webhook_url' },
});

/** Rows [name, url] of URLs that must all be refused with `error`, as [name, url, error]. */
const refusedWith = (error: string, rows: [string, string][]) =>
  rows.map(([name, url]) => [name, url, error] as const);

/** Posts `url` as a new app's webhook_url: expects it accepted, or refused with `error`. */
async function expectWebhookUrl(api: TestApi, url: string, error?: string) {
  const got = await postWebhook(api, url);
  expect(got).toEqual(error === undefined ? accepted(got.appId, url) : rejected(got.appId, error));
}

describe('webhook_url rules with ALLOW_HTTP_WEBHOOKS and ALLOW_LOCALHOST_WEBHOOKS off', () => {
  it.each([
    ['the empty string is accepted and disables webhooks', ''],
    ['an https URL of a public address is accepted', 'https://93.184.216.34/hook'],
    ['172.32.0.1, just outside 172.16/12, is accepted', 'https://172.32.0.1:8443/hook'],
  ])('%s', (_title, url) => expectWebhookUrl(apis.strict, url));

  it('http answers 400 (https required)', () =>
    expectWebhookUrl(apis.strict, 'http://93.184.216.34/hook', HTTPS_REQUIRED));

  it.each([
    ...refusedWith(INVALID, [
      ['not a URL', 'not a url'],
      ['a relative path', '/hook'],
      ['an ftp URL', 'ftp://93.184.216.34/hook'],
      ['a javascript: URL', 'javascript:alert(1)'],
      ['a URL with surrounding spaces', ' https://93.184.216.34/hook '],
      ['a scheme without a host', 'https://'],
    ]),
    ...refusedWith(FORBIDDEN, [
      ['10/8', 'https://10.1.2.3/hook'],
      ['172.16/12 (low end)', 'https://172.16.0.1/hook'],
      ['172.16/12 (high end)', 'https://172.31.255.254/hook'],
      ['192.168/16', 'https://192.168.1.10/hook'],
      ['loopback 127/8', 'https://127.0.0.1/hook'],
      ['loopback 127.1.2.3', 'https://127.1.2.3/hook'],
      ['a host name resolving to 127.0.0.1 (localhost)', 'https://localhost/hook'],
      ['a numeric loopback form', 'https://2130706433/hook'],
      ['link-local 169.254/16 (cloud metadata)', 'https://169.254.169.254/latest'],
      ['the unspecified IPv4 address', 'https://0.0.0.0/hook'],
      ['IPv6 loopback [::1]', 'https://[::1]/hook'],
      ['IPv6 unique-local [fd00::1]', 'https://[fd00::1]/hook'],
      ['IPv6 link-local [fe80::1]', 'https://[fe80::1]/hook'],
      ['the unspecified IPv6 address [::]', 'https://[::]/hook'],
      ['IPv4-mapped IPv6 of 10/8 [::ffff:10.0.0.1]', 'https://[::ffff:10.0.0.1]/hook'],
      ['IPv4-mapped IPv6 of loopback [::ffff:127.0.0.1]', 'https://[::ffff:127.0.0.1]:8443/hook'],
    ]),
  ])('%s answers 400', (_name, url, error) => expectWebhookUrl(apis.strict, url, error));

  it('a host that does not resolve answers 400', () =>
    expectWebhookUrl(apis.strict, 'https://no-such-host.invalid/hook', UNRESOLVABLE));

  it('a refused webhook_url leaves the app unchanged on overwrite', async () => {
    const { appId } = await postWebhook(apis.strict, 'https://93.184.216.34/hook');
    const res = await apis.strict.app.inject({
      method: 'POST',
      url: `/admin/apps/${appId}`,
      headers: { 'x-admin-api-key': ADMIN_KEY, 'content-type': 'application/json' },
      payload: JSON.stringify({ webhook_url: 'https://127.0.0.1/hook', rate_limit: 5 }),
    });
    expect(res.statusCode).toBe(400);
    const got = await apis.strict.app.inject({
      method: 'GET',
      url: `/admin/apps/${appId}`,
      headers: { 'x-admin-api-key': ADMIN_KEY },
    });
    expect(got.json()).toMatchObject({ webhook_url: 'https://93.184.216.34/hook', rate_limit: 0 });
  });
});

describe('ALLOW_HTTP_WEBHOOKS on, ALLOW_LOCALHOST_WEBHOOKS off', () => {
  it('http to a public address is accepted', () =>
    expectWebhookUrl(apis.httpOnly, 'http://93.184.216.34/hook'));

  it('http to loopback is still refused', () =>
    expectWebhookUrl(apis.httpOnly, 'http://localhost:8080/hook', FORBIDDEN));
});

describe('ALLOW_LOCALHOST_WEBHOOKS on, ALLOW_HTTP_WEBHOOKS off', () => {
  it.each(['https://localhost/hook', 'https://10.0.0.1/hook', 'https://[::1]:8443/hook'])(
    '%s is accepted',
    (url) => expectWebhookUrl(apis.localOnly, url),
  );

  it('http to loopback is refused (https still required)', () =>
    expectWebhookUrl(apis.localOnly, 'http://127.0.0.1:8080/hook', HTTPS_REQUIRED));
});

describe('both settings on', () => {
  it.each([
    ['http to localhost is accepted', 'http://localhost:9000/hook', undefined],
    [
      'a host that does not resolve is still refused',
      'http://no-such-host.invalid/hook',
      UNRESOLVABLE,
    ],
    ['a non-http scheme is still refused', 'ws://localhost:9000/hook', INVALID],
  ])('%s', (_title, url, error) => expectWebhookUrl(apis.open, url, error));
});

describe('checkWebhookUrl with a resolver (as the dispatcher uses it)', () => {
  const strict = { allowHttp: false, allowPrivate: false };

  it('refuses a host when any of its addresses is private', async () => {
    const resolve = async () => ['93.184.216.34', '10.0.0.5'];
    expect(await checkWebhookUrl('https://hooks.example.com/x', { ...strict, resolve })).toEqual({
      ok: false,
      problem: 'forbidden',
      message: FORBIDDEN,
    });
  });

  it('accepts a host whose addresses are all public and returns them', async () => {
    const resolve = async () => ['93.184.216.34', '2606:2800:220:1::1'];
    expect(await checkWebhookUrl('https://hooks.example.com/x', { ...strict, resolve })).toEqual({
      ok: true,
      addresses: ['93.184.216.34', '2606:2800:220:1::1'],
    });
  });

  it('a resolver failure counts as not resolving', async () => {
    const resolve = () => Promise.reject(Object.assign(new Error('nx'), { code: 'ENOTFOUND' }));
    const got = await checkWebhookUrl('https://hooks.example.com/x', { ...strict, resolve });
    expect(got).toMatchObject({ ok: false, problem: 'unresolvable' });
  });

  it('a resolver that does not answer in time counts as not resolving', async () => {
    const resolve = () => new Promise<string[]>(() => undefined);
    const got = await checkWebhookUrl('https://hooks.example.com/x', {
      ...strict,
      resolve,
      resolveTimeoutMs: 20,
    });
    expect(got).toMatchObject({ ok: false, problem: 'unresolvable' });
  });

  it('IP literals are not resolved', async () => {
    const resolve = () => Promise.reject(new Error('must not be called'));
    const got = await checkWebhookUrl('https://93.184.216.34/x', { ...strict, resolve });
    expect(got).toEqual({ ok: true, addresses: ['93.184.216.34'] });
  });
});

describe('isForbiddenAddress', () => {
  it.each([
    ['10.0.0.0', 'forbidden'],
    ['10.255.255.255', 'forbidden'],
    ['172.16.0.0', 'forbidden'],
    ['172.31.255.255', 'forbidden'],
    ['192.168.0.1', 'forbidden'],
    ['127.0.0.1', 'forbidden'],
    ['127.255.255.255', 'forbidden'],
    ['169.254.0.1', 'forbidden'],
    ['0.0.0.0', 'forbidden'],
    ['::1', 'forbidden'],
    ['::', 'forbidden'],
    ['fc00::1', 'forbidden'],
    ['fdff:ffff::1', 'forbidden'],
    ['fe80::1', 'forbidden'],
    ['febf::1', 'forbidden'],
    ['fec0::1', 'forbidden'],
    ['::ffff:10.0.0.1', 'forbidden'],
    ['::ffff:a00:1', 'forbidden'],
    ['::ffff:127.0.0.1', 'forbidden'],
    ['::ffff:192.168.1.1', 'forbidden'],
    ['::ffff:169.254.169.254', 'forbidden'],
    ['93.184.216.34', 'allowed'],
    ['8.8.8.8', 'allowed'],
    ['172.15.255.255', 'allowed'],
    ['172.32.0.0', 'allowed'],
    ['192.169.0.1', 'allowed'],
    ['169.255.0.1', 'allowed'],
    ['11.0.0.1', 'allowed'],
    ['2606:2800:220:1::1', 'allowed'],
    ['::ffff:93.184.216.34', 'allowed'],
    ['not-an-ip', 'allowed'],
  ])('%s is %s', (ip, verdict) => {
    expect(isForbiddenAddress(ip)).toBe(verdict === 'forbidden');
  });
});
