import { GatewayError } from '../../errors/catalogue.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { configureApp } from '../../domain/apps.js';
import { checkWebhookUrl } from '../../domain/webhook-url.js';
import {
  ADMIN_SECURITY,
  AppConfig,
  AppConfigBody,
  AppDeleted,
  AppIdParams,
  AppSaved,
  ERROR_REPLIES,
} from './schemas.js';
import { withStore } from './store-errors.js';

const appNotFound = (appId: string): GatewayError =>
  new GatewayError('APP_NOT_FOUND', { body: { app_id: appId } });

/** `POST/GET/DELETE /admin/apps/{app_id}`: an application's configuration. */
const appRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { config, redis } = app;

  app.post(
    '/apps/:app_id',
    {
      // A JSON body is required even though every field is optional: `{}` creates an app
      // with generated credentials.
      config: { body: 'required' },
      schema: {
        tags: ['admin'],
        summary: 'Create an application or overwrite its configuration',
        description:
          'Omitted fields keep their current value (on create: defaults, with a generated ' +
          '`api_key` and `webhook_secret`, both readable through GET).',
        security: ADMIN_SECURITY,
        params: AppIdParams,
        body: AppConfigBody,
        response: { 200: AppSaved, ...ERROR_REPLIES },
      },
    },
    async (request) => {
      const { app_id: appId } = request.params;
      const input = request.body;
      if (input.webhook_url !== undefined) {
        const check = await checkWebhookUrl(input.webhook_url, {
          allowHttp: config.ALLOW_HTTP_WEBHOOKS,
          allowPrivate: config.ALLOW_LOCALHOST_WEBHOOKS,
        });
        if (!check.ok) throw new GatewayError('INVALID_WEBHOOK_URL', { message: check.message });
      }
      const record = await withStore(redis, async () => {
        const current = await app.apps.get(appId);
        const next = configureApp(appId, current, input, new Date());
        await app.apps.save(next);
        return next;
      });
      // Other replicas drop their copy on the announcement; this one at once, so the very
      // next request here sees the change even if the announcement is still in flight.
      app.appDirectory.forget(appId);
      return {
        success: true as const,
        app_id: appId,
        webhook_url: record.webhook_url,
        rate_limit: record.rate_limit,
      };
    },
  );

  app.get(
    '/apps/:app_id',
    {
      schema: {
        tags: ['admin'],
        summary: "An application's configuration, including its API key and webhook secret",
        security: ADMIN_SECURITY,
        params: AppIdParams,
        response: { 200: AppConfig, ...ERROR_REPLIES },
      },
    },
    async (request) => {
      const { app_id: appId } = request.params;
      const record = await withStore(redis, () => app.apps.get(appId));
      if (!record) throw appNotFound(appId);
      return {
        success: true as const,
        ...record,
        events: [...record.events],
        disabled: record.disabled ?? false,
      };
    },
  );

  app.delete(
    '/apps/:app_id',
    {
      schema: {
        tags: ['admin'],
        summary: 'Delete an application with its caller-ID list and DID routes',
        description:
          'Active sessions are left alone; their later requests fail authentication at once ' +
          'on every api replica.',
        security: ADMIN_SECURITY,
        params: AppIdParams,
        response: { 200: AppDeleted, ...ERROR_REPLIES },
      },
    },
    async (request) => {
      const { app_id: appId } = request.params;
      const deleted = await withStore(redis, () => app.apps.delete(appId));
      app.appDirectory.forget(appId);
      if (!deleted) throw appNotFound(appId);
      return { success: true as const, app_id: appId };
    },
  );
};

export default appRoutes;
