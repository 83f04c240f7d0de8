import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { serveUntilStopped } from './protocol.js';

/**
 * The baseline: a bare fastify route on the same path, answering the same 202 deferred envelope
 * as the api's session command, with no auth, validation, Redis or hooks. The gap between the
 * two is what the gateway's own work costs.
 */
const app = Fastify({ logger: false });

app.post('/api/v1/sessions/:uuid/commands/answer', async (_request, reply) =>
  reply.code(202).send({ operation_id: randomUUID(), status: 'in_progress', timeout_ms: 2000 }),
);

await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
if (address === null || typeof address === 'string') throw new Error('baseline has no TCP port');
serveUntilStopped(address.port, () => app.close());
