import { GatewayError } from '../errors/catalogue.js';

/** A 429 with `Retry-After` in whole seconds (at least 1) until the window or cooldown ends. */
export const rateLimited = (code: 'RATE_LIMITED' | 'COMMAND_RATE_LIMITED', waitMs: number) =>
  new GatewayError(code, {
    headers: { 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) },
  });
