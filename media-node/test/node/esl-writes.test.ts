import { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { startSimulator, type Simulator } from '@voicegw/simulator';
import type { EslClient } from '../../src/esl/client.js';

import { connectEslClient } from './esl-client.js';

// What reaches the wire cannot be seen from userland (a receiver reads whatever segments have
// arrived as one chunk), so the test watches the two calls that decide it, on the node's own
// sockets: setNoDelay, and one socket.write per request.
let sim: Simulator;
let client: EslClient;
const write = vi.spyOn(Socket.prototype, 'write');
const setNoDelay = vi.spyOn(Socket.prototype, 'setNoDelay');
// What the socket hands the kernel: one _write (one chunk) or one _writev (several) per syscall.
const handleWrite = vi.spyOn(Socket.prototype, '_write');
const handleWritev = vi.spyOn(Socket.prototype, '_writev');

/** The sockets of calls made on a connection to the simulator's event socket. */
function onEventSocket<A extends unknown[]>(spy: { mock: { calls: A[]; contexts: unknown[] } }) {
  return spy.mock.calls.filter((_, i) => {
    const socket = spy.mock.contexts[i] as Socket;
    return socket.remotePort === sim.eslPort;
  });
}

beforeAll(async () => {
  sim = await startSimulator({ eslPort: 0, httpPort: 0 });
  client = await connectEslClient(sim, {
    events: ['CHANNEL_PARK', 'BACKGROUND_JOB'],
    filters: [],
  });
});

afterAll(async () => {
  await client.stop();
  await sim.close();
  vi.restoreAllMocks();
});

describe('event-socket requests', () => {
  it('turn Nagle off and leave in one write each, auth included', async () => {
    expect(await client.api('status')).toContain('UP');
    expect(await client.execute('no-such-uuid', 'answer', '', 'app-1')).toMatch(/^-ERR/);
    expect(await client.bgapi('status', 'job-1')).toMatch(/^\+OK/);

    expect(onEventSocket(setNoDelay).map(([enable]) => enable ?? true)).toEqual([true]);
    const requests = onEventSocket(write).map(([data]) => String(data));
    expect(requests).toEqual([
      'auth ClueCon\n\n',
      // modesl's own subscription, sent after auth
      'event json BACKGROUND_JOB CHANNEL_EXECUTE_COMPLETE\n\n',
      'event json CHANNEL_PARK BACKGROUND_JOB\n\n',
      'api status\n\n',
      'sendmsg no-such-uuid\ncall-command: execute\nexecute-app-name: answer\n' +
        'execute-app-arg: \nEvent-UUID: app-1\nevent-lock: true\n\n',
      'bgapi status\nJob-UUID: job-1\n\n',
    ]);
  });

  it('of one event-loop turn leave in one write', async () => {
    // The coalescer's clock stands still, so that a slow or preempted test process does not
    // take the first request out early (MAX_HOLD_MS).
    const now = performance.now();
    const clock = vi.spyOn(performance, 'now').mockReturnValue(now);
    onTestFinished(() => clock.mockRestore());
    const [writes, writevs] = [
      onEventSocket(handleWrite).length,
      onEventSocket(handleWritev).length,
    ];
    const replies = await Promise.all([
      client.api('status'),
      client.api('uptime'),
      client.api('version'),
    ]);
    expect(replies.map((reply) => reply.length > 0)).toEqual([true, true, true]);
    expect(onEventSocket(handleWrite).length - writes).toBe(0);
    const batches = onEventSocket(handleWritev).slice(writevs);
    expect(batches.map(([chunks]) => (chunks as unknown[]).length)).toEqual([3]);
  });
});
