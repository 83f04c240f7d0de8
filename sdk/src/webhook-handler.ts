import {
  verifyWebhook,
  WebhookVerificationError,
  type EventName,
  type WebhookEvent,
  type WebhookHeaders,
} from './webhooks.js';

/** One function per event name the app handles; others are acknowledged and ignored. */
export type WebhookHandlers = {
  readonly [N in EventName]?: (event: WebhookEvent<N>) => unknown;
} & {
  /** Called for every verified event before its own handler (logging, deduplication…). */
  readonly '*'?: (event: WebhookEvent) => unknown;
};

/** The parts of node:http's IncomingMessage and ServerResponse the handler uses. */
export interface WebhookRequest extends AsyncIterable<Uint8Array | string> {
  readonly method?: string | undefined;
  readonly headers: WebhookHeaders;
}
export interface WebhookResponse {
  writeHead(status: number, headers?: Record<string, string>): unknown;
  end(body?: string): unknown;
}

/** Larger than any webhook the gateway sends; a bigger body is refused unread. */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * A node:http request listener for webhooks: 204 once the event is verified and its handler has
 * finished; 400 when the signature or body does not verify (not the gateway's, or tampered), 405
 * for another method, 413 for a body larger than any webhook; 500 when the handler throws, so
 * that the gateway delivers the event again later (deduplicate on `event_id`).
 */
export function createWebhookHandler(
  secret: string,
  handlers: WebhookHandlers,
): (req: WebhookRequest, res: WebhookResponse) => Promise<void> {
  return async (req, res) => {
    const reply = (status: number, error?: string) => {
      if (error === undefined) {
        res.writeHead(status);
        res.end();
        return;
      }
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ success: false, error }));
    };
    if (req.method !== 'POST') return reply(405, 'Method not allowed');
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of req) {
      const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk;
      size += bytes.byteLength;
      if (size > MAX_BODY_BYTES) return reply(413, 'Request body too large');
      chunks.push(bytes);
    }
    let event: WebhookEvent;
    try {
      event = verifyWebhook(concat(chunks, size), req.headers, secret);
    } catch (error) {
      if (error instanceof WebhookVerificationError) return reply(400, error.message);
      throw error;
    }
    try {
      await handlers['*']?.(event);
      const handler = handlers[event.event] as ((e: WebhookEvent) => unknown) | undefined;
      await handler?.(event);
    } catch {
      return reply(500, 'Handler failed');
    }
    reply(204);
  };
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
