/// <reference types="@fastify/swagger" preserve="true" />
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';
import { documentObject, documentRoute } from '../openapi/transform.js';

/** OpenAPI 3.1 generated from the route schemas; UI at /docs, JSON at /docs/json. */
export default fp(
  async (app) => {
    await app.register(swagger, {
      transform: documentRoute,
      transformObject: documentObject,
      // Shared schemas (the error codes) are components named by their $id, not `def-N`.
      refResolver: {
        buildLocalReference: (json, _baseUri, _fragment, i) =>
          typeof json.$id === 'string' ? json.$id : `def-${i}`,
      },
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'voicegw API',
          version: '1.0.0',
          description:
            'Control live phone calls over HTTP and receive every call event as a signed webhook.',
        },
        components: {
          securitySchemes: {
            appId: { type: 'apiKey', in: 'header', name: 'X-App-ID' },
            apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
            adminKey: { type: 'apiKey', in: 'header', name: 'X-Admin-API-Key' },
          },
        },
        tags: [
          { name: 'sessions', description: 'Per-session call control commands' },
          { name: 'conferences', description: 'Conference rooms' },
          { name: 'dial', description: 'Outbound calls' },
          { name: 'admin', description: 'Application administration (server admin key)' },
          { name: 'operations', description: 'Health and metrics' },
        ],
      },
    });
    await app.register(swaggerUi, { routePrefix: '/docs' });
  },
  { name: 'openapi' },
);
