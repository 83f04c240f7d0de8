import { isIP } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { literalRefusal, vettedLookup } from '@voicegw/shared';
import { checkWebhookUrl } from '../src/domain/webhook-url.js';
import { WebhookSender } from '../src/webhooks/sender.js';
import { ADMIN_KEY, json, useApi } from './helpers.js';

/**
 * Every address form the SSRF rule knows, refused or accepted, checked where the rule applies:
 * registration (an IP literal in webhook_url, and a host name resolving to the address) and
 * delivery (the literal before connecting, and the name in the socket's lookup).
 */
const REFUSED: readonly (readonly [form: string, address: string])[] = [
  // IPv4 special-purpose ranges
  ['this network 0/8', '0.1.2.3'],
  ['private 10/8', '10.0.0.1'],
  ['CGNAT 100.64/10', '100.64.0.1'],
  ['CGNAT 100.64/10, last', '100.127.255.255'],
  ['loopback 127/8', '127.0.0.1'],
  ['link-local, cloud metadata', '169.254.169.254'],
  ['private 172.16/12', '172.16.0.1'],
  ['IETF protocol assignments 192.0.0/24', '192.0.0.8'],
  ['documentation 192.0.2/24', '192.0.2.1'],
  ['6to4 relay anycast 192.88.99/24', '192.88.99.1'],
  ['private 192.168/16', '192.168.1.1'],
  ['benchmarking 198.18/15', '198.19.255.1'],
  ['documentation 198.51.100/24', '198.51.100.7'],
  ['documentation 203.0.113/24', '203.0.113.10'],
  ['multicast 224/4', '224.0.0.1'],
  ['multicast 224/4, last', '239.255.255.255'],
  ['reserved 240/4', '240.0.0.1'],
  ['broadcast', '255.255.255.255'],
  // IPv6 ranges
  ['unspecified', '::'],
  ['loopback', '::1'],
  ['discard-only 100::/64', '100::1'],
  ['Teredo 2001::/32', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
  ['documentation 2001:db8::/32', '2001:db8::1'],
  ['unique-local fc00::/7', 'fd00::1'],
  ['link-local fe80::/10', 'fe80::1'],
  ['site-local fec0::/10', 'fec0::1'],
  ['multicast ff00::/8', 'ff02::1'],
  ['local-use NAT64 64:ff9b:1::/48, public IPv4 inside', '64:ff9b:1::5db8:d822'],
  // IPv6 forms that embed a forbidden IPv4 address
  ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
  ['IPv4-mapped metadata, hex', '::ffff:a9fe:a9fe'],
  ['IPv4-compatible loopback', '::7f00:1'],
  ['IPv4-compatible metadata', '::169.254.169.254'],
  ['SIIT loopback', '::ffff:0:7f00:1'],
  ['SIIT metadata', '::ffff:0:169.254.169.254'],
  ['NAT64 loopback', '64:ff9b::7f00:1'],
  ['NAT64 metadata', '64:ff9b::a9fe:a9fe'],
  ['NAT64 CGNAT', '64:ff9b::100.64.0.1'],
  ['NAT64 private', '64:ff9b::10.0.0.1'],
  ['6to4 loopback', '2002:7f00:1::'],
  ['6to4 metadata', '2002:a9fe:a9fe::1'],
  ['6to4 private', '2002:c0a8:101::1'],
  ['6to4 CGNAT', '2002:6440:1::'],
];

const ACCEPTED: readonly (readonly [form: string, address: string])[] = [
  ['public IPv4', '93.184.216.34'],
  ['just outside CGNAT', '100.128.0.1'],
  ['just outside 198.18/15', '198.20.0.1'],
  ['just below multicast', '223.255.255.254'],
  ['public IPv6', '2606:2800:220:1::1'],
  ['IPv4-mapped public', '::ffff:93.184.216.34'],
  ['SIIT public', '::ffff:0:5db8:d822'],
  ['NAT64 public', '64:ff9b::93.184.216.34'],
  ['6to4 public', '2002:5db8:d822::1'],
];

const FORBIDDEN_MESSAGE =
  'webhook_url must not resolve to a private, loopback or link-local address';
const HOST = 'hooks.example.test';
const literalUrl = (address: string, port?: number) =>
  `https://${address.includes(':') ? `[${address}]` : address}${port ? `:${port}` : ''}/hook`;

const api = useApi({ ALLOW_HTTP_WEBHOOKS: 'false', ALLOW_LOCALHOST_WEBHOOKS: 'false' });
let sender: WebhookSender;
let registered = 0;

beforeAll(async () => {
  // Only refused addresses go through it: nothing is connected to.
  sender = new WebhookSender({
    timeoutMs: 300,
    allowPrivate: false,
    connectionsPerOrigin: 1,
    resolve: async (host) => {
      const address = host.startsWith('to-') ? resolved.get(host) : undefined;
      if (address === undefined) throw new Error(`unexpected lookup of ${host}`);
      return [address];
    },
  });
});
afterAll(() => sender.close());

/** Per-address host names for the sender's lookup, so that its pools never mix addresses. */
const resolved = new Map<string, string>();
const hostFor = (address: string) => {
  const host = `to-${resolved.size}.${HOST}`;
  resolved.set(host, address);
  return host;
};

async function register(webhookUrl: string) {
  const appId = `ssrf_${(registered += 1)}`;
  const res = await api.app.inject({
    method: 'POST',
    url: `/admin/apps/${appId}`,
    headers: { 'x-admin-api-key': ADMIN_KEY, ...json },
    payload: JSON.stringify({ webhook_url: webhookUrl }),
  });
  return { status: res.statusCode, error: res.json<{ error?: string }>().error };
}

const checkName = (address: string) =>
  checkWebhookUrl(`https://${HOST}/hook`, {
    allowHttp: false,
    allowPrivate: false,
    resolve: async () => [address],
  });

const deliver = (url: string) =>
  sender.send(url, { 'content-type': 'application/json' }, Buffer.from('{}'));

describe('webhook addresses refused at registration and at delivery', () => {
  it.each(REFUSED)('%s (%s)', async (_form, address) => {
    expect(await register(literalUrl(address))).toEqual({ status: 400, error: FORBIDDEN_MESSAGE });
    expect(await checkName(address)).toMatchObject({ ok: false, problem: 'forbidden' });

    const bare = new URL(literalUrl(address)).hostname.replace(/^\[(.*)\]$/, '$1');
    expect(await deliver(literalUrl(address, 9))).toEqual({
      kind: 'failed',
      status: null,
      error: `${bare} is a forbidden address`,
    });
    const host = hostFor(address);
    expect(await deliver(`https://${host}:9/hook`)).toEqual({
      kind: 'failed',
      status: null,
      error: `${host} resolves to a forbidden address (${address})`,
    });
  });
});

describe('webhook addresses accepted at registration and at delivery', () => {
  it.each(ACCEPTED)('%s (%s)', async (_form, address) => {
    expect(await register(literalUrl(address))).toEqual({ status: 200, error: undefined });
    expect(await checkName(address)).toEqual({ ok: true, addresses: [address] });

    // At delivery, without connecting out: the literal passes the pre-connect check, and the
    // socket's lookup hands the connection the very address it vetted.
    expect(literalRefusal(new URL(literalUrl(address)).hostname)).toBeUndefined();
    const lookup = vettedLookup(async () => [address], false);
    const handed = await new Promise((done) => {
      lookup(HOST, {}, (err, vetted, family) => done({ err, vetted, family }));
    });
    expect(handed).toEqual({ err: null, vetted: address, family: isIP(address) });
  });
});
