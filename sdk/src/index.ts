// @voicegw/sdk: a typed client of the voicegw gateway, its admin API and its webhooks.
export { VoiceGateway, Conferences, Sessions } from './client.js';
export type { VoiceGatewayOptions } from './client.js';
export { VoiceGatewayAdmin, Apps, NumberLists, WebhookLanes, DeadLetters } from './admin.js';
export type { VoiceGatewayAdminOptions } from './admin.js';
export { VoiceGatewayError } from './errors.js';
export { DEFAULT_RETRY } from './retry.js';
export type { RetryOptions } from './retry.js';
export type { HttpOptions } from './http.js';
export type { SessionCommand, CommandArgs, CommandAccepted } from './commands.js';
export { verifyWebhook, WebhookVerificationError } from './webhooks.js';
export type { EventName, WebhookEnvelope, WebhookEvent, WebhookHeaders } from './webhooks.js';
export { createWebhookHandler } from './webhook-handler.js';
export type { WebhookHandlers, WebhookRequest, WebhookResponse } from './webhook-handler.js';
export {
  parseStreamFrame,
  mediaFrame,
  markFrame,
  clearFrame,
  verifyStreamUpgrade,
  StreamFrameError,
} from './media-stream.js';
export type {
  StreamFrameErrorReason,
  StreamUpgradeRequest,
  VerifiedStreamUpgrade,
} from './media-stream.js';
export type * from './media-stream-frames.js';
export type * from './contract.js';
