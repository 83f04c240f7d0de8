import { GatewayError } from '../../errors/catalogue.js';
import type { FastifyRequest } from 'fastify';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import type { PageQueryArgs } from '../../domain/page-query.js';

/**
 * The page size and cursor of a list request. The list routes attach their query validation
 * (`attachValidation`) so that a bad limit or cursor gets its own catalogue message here, and a
 * bad filter the message `filters` gives for its field (`/status`).
 */
export function pageArgs(
  request: Pick<FastifyRequest, 'validationError'> & { readonly query: PageQueryArgs },
  max: number,
  filters: Readonly<Record<string, string>> = {},
): { readonly limit: number; readonly cursor: string | undefined } {
  const failure = request.validationError;
  if (failure) {
    const details = failure.validation as readonly FastifySchemaValidationError[] | undefined;
    const field = details?.[0]?.instancePath ?? '';
    if (field === '/cursor') throw new GatewayError('INVALID_CURSOR');
    const message = filters[field];
    if (message) throw new GatewayError('VALIDATION_FAILED', { message });
    throw new GatewayError('INVALID_LIMIT');
  }
  const { limit, cursor } = request.query;
  return { limit: Math.min(limit, max), cursor };
}
