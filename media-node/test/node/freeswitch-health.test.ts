// What a media node says about its FreeSWITCH: in its heartbeat (and so in the api's
// /admin/health), in its own /health and in its log, for a wrong event socket password and
// for a dial template whose gateway FreeSWITCH does not have.
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { createLogger, NodeRegistry } from '@voicegw/shared';
import { freePort } from '@voicegw/tools';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { loadMediaNodeConfig } from '../../src/config.js';
import { startMediaNode, type MediaNode } from '../../src/index.js';
import { ADMIN_KEY, TEST_NODE_ENV } from './harness.js';
import { useStack } from './use-stack.js';

const started: MediaNode[] = [];

const stack = useStack();

afterAll(async () => {
  await Promise.all(started.map((n) => n.close()));
});

interface Started {
  readonly node: MediaNode;
  readonly port: number;
  /** The node's log lines so far, parsed. */
  readonly log: () => Array<{ level: number; msg: string }>;
}

/** A media node on the stack's simulator with its own /health port and a readable log. */
async function node(env: Record<string, string>): Promise<Started> {
  const port = await freePort();
  const lines: string[] = [];
  const destination = new PassThrough();
  destination.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n')));
  const media = await startMediaNode(
    loadMediaNodeConfig({
      REDIS_URL: inject('redisUrl'),
      REDIS_PREFIX: stack.redisPrefix,
      NODE_NAME: `node-${randomUUID()}`,
      FS_ESL_PORT: String(stack.sim.eslPort),
      ...TEST_NODE_ENV,
      ESL_CONNECT_TIMEOUT_MS: '300',
      METRICS_HOST: '127.0.0.1',
      METRICS_PORT: String(port),
      ...env,
    }),
    { logger: createLogger({ name: 'media-node', level: 'debug', destination }) },
  );
  started.push(media);
  const log = () =>
    lines.filter(Boolean).map((l) => JSON.parse(l) as { level: number; msg: string });
  return { node: media, port, log };
}

const healthOf = async (port: number) => {
  const res = await fetch(`http://127.0.0.1:${port}/health`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

const adminHealth = async () =>
  (
    await stack.api.inject({
      method: 'GET',
      url: '/admin/health',
      headers: { 'x-admin-api-key': ADMIN_KEY },
    })
  ).json<{ status: string; degraded_media_nodes: Array<Record<string, string>> }>();

const beatOf = async (prefix: string) =>
  (await new NodeRegistry(stack.redis, stack.keys).live()).find((n) => n.prefix === prefix);

describe('a media node and its FreeSWITCH', () => {
  it('the stack node, connected with a known gateway, is ok everywhere', async () => {
    expect(await beatOf(stack.node.prefix)).toMatchObject({ freeswitch: 'ok' });
    expect((await adminHealth()).degraded_media_nodes).not.toContainEqual(
      expect.objectContaining({ prefix: stack.node.prefix }),
    );
  });

  it('a wrong ESL password: unreachable in /health (503), its heartbeat and /admin/health', async () => {
    const { node: wrong, port } = await node({ FS_ESL_PASSWORD: 'not-the-password' });
    expect(await healthOf(port)).toEqual({
      status: 503,
      body: { status: 'freeswitch_unreachable' },
    });
    expect(await beatOf(wrong.prefix)).toMatchObject({
      freeswitch: 'unreachable',
      outbound_capacity: 0,
    });
    const admin = await adminHealth();
    expect(admin.status).toBe('degraded');
    expect(admin.degraded_media_nodes).toContainEqual({
      name: wrong.name,
      prefix: wrong.prefix,
      freeswitch: 'unreachable',
    });
    await wrong.close();
  });

  it('a dial template through a gateway FreeSWITCH lacks: said at start, in /health and the heartbeat', async () => {
    const {
      node: bad,
      port,
      log,
    } = await node({
      DIAL_STRING_TEMPLATE: 'sofia/gateway/carrier/{to}',
    });
    const error = log().find((l) => l.level === 50);
    expect(error?.msg).toMatch(/^dials cannot work: FreeSWITCH has no sofia gateway "carrier"/);
    expect(await healthOf(port)).toEqual({
      status: 200,
      body: { status: 'dial_target_unusable', problem: expect.stringContaining('"carrier"') },
    });
    expect(await beatOf(bad.prefix)).toMatchObject({
      freeswitch: 'dial_target_unusable',
      outbound_capacity: 0,
    });
    expect((await adminHealth()).degraded_media_nodes).toContainEqual({
      name: bad.name,
      prefix: bad.prefix,
      freeswitch: 'dial_target_unusable',
    });
    await bad.close();
  });

  it('the gateway the simulator has (pstn, the default template) is usable', async () => {
    const { node: good, port } = await node({ DIAL_STRING_TEMPLATE: 'sofia/gateway/pstn/{to}' });
    expect(await healthOf(port)).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await beatOf(good.prefix)).toMatchObject({ freeswitch: 'ok' });
    await good.close();
  });
});
