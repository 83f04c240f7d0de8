import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePorts } from '../src/ports.js';

describe('freePorts', () => {
  // Probed one at a time, seven ports repeated one in about 230 tries here: the kernel may hand a
  // just-closed port out again, and two processes of a test then raced for it.
  it('never gives one port twice in a set', async () => {
    for (let round = 0; round < 2000; round++) {
      const ports = Object.values(await freePorts('a', 'b', 'c', 'd', 'e', 'f', 'g'));
      expect(new Set(ports).size).toBe(7);
    }
  });

  it('has released every port it gives, under its name', async () => {
    const ports = await freePorts('api', 'hook');
    expect(Object.keys(ports)).toEqual(['api', 'hook']);
    for (const port of Object.values(ports)) {
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject).listen(port, '127.0.0.1', resolve);
      });
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
