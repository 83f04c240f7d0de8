import { GatewayError } from '../errors/catalogue.js';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';

/** Fields whose absence the contract reports as `urls is required`. */
const URL_LIST_FIELDS = new Set(['urls', 'prompt_files']);

/**
 * Turns the first schema violation into the contract's message where it names one
 * (`urls is required`, `Invalid command_uid format`), else into a sentence naming the field.
 */
export function validationError(
  errors: readonly FastifySchemaValidationError[],
  context: string | undefined,
): GatewayError {
  const first = errors[0];
  if (!first) return new GatewayError('VALIDATION_FAILED');
  const field = first.instancePath.replace(/^\//, '').replaceAll('/', '.');
  const params = first.params;

  if (first.keyword === 'required' && URL_LIST_FIELDS.has(String(params.missingProperty))) {
    return new GatewayError('URLS_REQUIRED');
  }
  if (field === 'command_uid') return new GatewayError('INVALID_COMMAND_UID');
  if (first.keyword === 'minItems' && URL_LIST_FIELDS.has(field)) {
    return new GatewayError('URLS_REQUIRED');
  }

  const subject = field || (context === 'body' ? 'body' : (context ?? 'request'));
  // A key refused by `propertyNames` (stream/start custom_parameters) comes as the key's own
  // error first, then this one, which names the key.
  const badKey = errors.find((error) => error.keyword === 'propertyNames');
  if (badKey) {
    const key = String(badKey.params.propertyName);
    return new GatewayError('VALIDATION_FAILED', {
      message: `${subject} has an invalid key '${key}'`,
    });
  }
  let message: string;
  switch (first.keyword) {
    case 'required':
      message = `${String(params.missingProperty)} is required`;
      break;
    case 'additionalProperties':
      message = `${subject} must not have property '${String(params.additionalProperty)}'`;
      break;
    case 'pattern':
      message = `${subject} has an invalid format`;
      break;
    case 'not':
      // The only negated schema is "non-zero" (playback/seek position_ms).
      message = `${subject} must be non-zero`;
      break;
    default:
      message = `${subject} ${first.message ?? 'is invalid'}`;
  }
  return new GatewayError('VALIDATION_FAILED', { message });
}
