import { ISRAELI_NUMBER_PATTERN } from '@voicegw/shared';
import { GatewayError } from '../../errors/catalogue.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NumberLists, type NumberListKind } from '../../domain/caller-ids.js';
import {
  ADMIN_SECURITY,
  AppIdParams,
  ERROR_REPLIES,
  NumberList,
  NumberListBody,
  NumberParams,
} from './schemas.js';
import { withStore } from './store-errors.js';

const ISRAELI_NUMBER = new RegExp(ISRAELI_NUMBER_PATTERN);

const DESCRIPTIONS: Record<NumberListKind, { noun: string; put: string }> = {
  cids: {
    noun: 'caller-ID allow-list (numbers the app may dial from)',
    put: 'Entries are appended; numbers already on the list and not sent are kept.',
  },
  dids: {
    noun: 'DIDs (called numbers routed to the app for inbound calls)',
    put:
      'Entries are appended. A DID belongs to one app: claiming one routed to another app ' +
      'answers 409 and changes nothing.',
  },
};

/** Every entry must be an Israeli domestic number; the message names the first that is not. */
function checkNumbers(numbers: readonly string[]): void {
  const bad = numbers.find((n) => !ISRAELI_NUMBER.test(n));
  if (bad !== undefined) {
    throw new GatewayError('VALIDATION_FAILED', {
      message: `Invalid number '${bad.slice(0, 32)}': Israeli domestic format required`,
    });
  }
}

/**
 * `PUT/GET /admin/apps/{app_id}/{cids|dids}` and `DELETE .../{number}`. Every answer is the
 * app's resulting list: `{success, app_id, cids|dids: [...sorted]}`.
 */
const numberListRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const lists = new NumberLists(app.redis, app.keys, app.scripts);

  for (const kind of ['cids', 'dids'] as const) {
    const { noun, put } = DESCRIPTIONS[kind];
    const reply = NumberList(kind);
    const answer = (appId: string, numbers: string[]) => ({
      success: true as const,
      app_id: appId,
      [kind]: numbers,
    });

    app.put(
      `/apps/:app_id/${kind}`,
      {
        config: { body: 'required' },
        schema: {
          tags: ['admin'],
          summary: `Add to the app's ${noun}`,
          description: `Body: a bare JSON array of numbers. ${put}`,
          security: ADMIN_SECURITY,
          params: AppIdParams,
          body: NumberListBody,
          response: { 200: reply, ...ERROR_REPLIES },
        },
      },
      async (request) => {
        const { app_id: appId } = request.params;
        const numbers = request.body;
        checkNumbers(numbers);
        return answer(appId, await withStore(app.redis, () => lists.add(kind, appId, numbers)));
      },
    );

    app.get(
      `/apps/:app_id/${kind}`,
      {
        schema: {
          tags: ['admin'],
          summary: `The app's ${noun}`,
          security: ADMIN_SECURITY,
          params: AppIdParams,
          response: { 200: reply, ...ERROR_REPLIES },
        },
      },
      async (request) => {
        const { app_id: appId } = request.params;
        return answer(appId, await withStore(app.redis, () => lists.list(kind, appId)));
      },
    );

    app.delete(
      `/apps/:app_id/${kind}/:number`,
      {
        schema: {
          tags: ['admin'],
          summary: `Remove a number from the app's ${noun}`,
          description: '404 when the app, or the number on its list, is unknown.',
          security: ADMIN_SECURITY,
          params: NumberParams,
          response: { 200: reply, ...ERROR_REPLIES },
        },
      },
      async (request) => {
        const { app_id: appId, number } = request.params;
        return answer(appId, await withStore(app.redis, () => lists.remove(kind, appId, number)));
      },
    );
  }
};

export default numberListRoutes;
