import { EVENT_NAMES, ISRAELI_NUMBER_PATTERN } from '@voicegw/shared';
import { Type } from 'typebox';
import { errorBody } from '../../errors/schema.js';

// Request and response schemas of the admin routes; the handlers' types derive from them.

export const ADMIN_SECURITY = [{ adminKey: [] }];

export const AppIdParams = Type.Object({
  app_id: Type.String({
    pattern: '^[a-zA-Z0-9_-]+$',
    maxLength: 64,
    description: 'Application id: letters, digits, `_` and `-`, at most 64 characters',
  }),
});

export const NumberParams = Type.Object({
  app_id: AppIdParams.properties.app_id,
  number: Type.String({ description: 'A number on the list' }),
});

const WebhookUrl = Type.String({
  maxLength: 2048,
  description:
    'http(s) URL of the webhook receiver; empty disables webhooks. https only unless ' +
    'ALLOW_HTTP_WEBHOOKS; private, loopback and link-local hosts refused unless ' +
    'ALLOW_LOCALHOST_WEBHOOKS.',
});
const ApiKey = Type.String({
  minLength: 16,
  maxLength: 256,
  pattern: '^[\\x21-\\x7E]+$',
  description: 'At least 16 printable non-space ASCII characters',
});
const RateLimit = Type.Integer({
  minimum: 0,
  maximum: 10_000,
  description: 'Requests per minute; 0 means the default of 100',
});
const Events = Type.Array(Type.Enum([...EVENT_NAMES]), {
  uniqueItems: true,
  description: 'Event whitelist; empty means every event',
});
const WebhookSecret = Type.String({
  pattern: '^whsec_[A-Za-z0-9+/]{32,88}={0,2}$',
  description: 'Webhook signing secret: `whsec_` and base64 of 24 to 64 bytes',
});

/** Every field optional: on overwrite an omitted field keeps its value. */
export const AppConfigBody = Type.Object(
  {
    webhook_url: Type.Optional(WebhookUrl),
    api_key: Type.Optional(ApiKey),
    rate_limit: Type.Optional(RateLimit),
    events: Type.Optional(Events),
    webhook_secret: Type.Optional(WebhookSecret),
  },
  { additionalProperties: false },
);

export const AppSaved = Type.Object({
  success: Type.Literal(true),
  app_id: Type.String(),
  webhook_url: Type.String(),
  rate_limit: Type.Integer(),
});

export const AppConfig = Type.Object({
  success: Type.Literal(true),
  app_id: Type.String(),
  webhook_url: WebhookUrl,
  api_key: Type.String(),
  rate_limit: RateLimit,
  events: Type.Array(Type.String()),
  webhook_secret: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  disabled: Type.Boolean({
    description:
      'True once the webhook has failed for 5 days without a success: events are ' +
      'dead-lettered instead of delivered. POSTing the configuration re-enables the app.',
  }),
});

export const AppDeleted = Type.Object({ success: Type.Literal(true), app_id: Type.String() });

/** Numbers in the Israeli domestic format (checked by the handler, which names the bad one). */
export const NumberListBody = Type.Array(
  Type.String({ description: `Israeli domestic number, ${ISRAELI_NUMBER_PATTERN}` }),
  { maxItems: 1000 },
);

export const NumberList = (field: 'cids' | 'dids') =>
  Type.Object({
    success: Type.Literal(true),
    app_id: Type.String(),
    [field]: Type.Array(Type.String(), { description: 'Sorted' }),
  });

export const AdminHealth = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  timestamp: Type.String({ format: 'date-time' }),
  redis: Type.Union([Type.Literal('up'), Type.Literal('down')]),
  media_nodes: Type.Integer({ description: 'Live media nodes (fresh heartbeat)' }),
  degraded_media_nodes: Type.Array(
    Type.Object({
      name: Type.String(),
      prefix: Type.String(),
      freeswitch: Type.Union([Type.Literal('unreachable'), Type.Literal('dial_target_unusable')]),
    }),
    {
      description:
        'Live media nodes that cannot take calls as they should: no connection to their ' +
        'FreeSWITCH (e.g. a wrong ESL password), or a dial target FreeSWITCH does not have',
    },
  ),
});

export const RecentErrorsReply = Type.Object({
  total: Type.Integer(),
  errors: Type.Array(
    Type.Object({
      timestamp: Type.String({ format: 'date-time' }),
      trace_id: Type.String(),
      method: Type.String(),
      path: Type.String(),
      pattern: Type.String(),
      status_code: Type.Integer(),
      app_id: Type.String(),
      error: Type.String({ description: 'Sanitized message' }),
    }),
  ),
});

/** Error bodies of the admin routes: `app_id` on App not found, `detail` on DID_TAKEN. */
export const AdminError = errorBody({
  app_id: Type.Optional(Type.String()),
  detail: Type.Optional(Type.Object({ did: Type.String(), app_id: Type.String() })),
});

export const ERROR_REPLIES = { '4xx': AdminError, '5xx': AdminError } as const;
