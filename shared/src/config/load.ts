import { Ajv, type ErrorObject } from 'ajv';
import type { Static, TSchema } from 'typebox';

/** A process's environment did not satisfy its schema; the message names every offending variable. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true, strict: false });

/**
 * Compiles a process's environment into a typed, fully defaulted object, once, at start.
 * Empty strings count as unset so that `FOO=` in a shell or a chart falls back to the default.
 */
export function loadConfig<S extends TSchema>(schema: S, env: NodeJS.ProcessEnv): Static<S> {
  const properties = (schema as { properties?: Record<string, unknown> }).properties ?? {};
  const input: Record<string, string> = {};
  for (const name of Object.keys(properties)) {
    const value = env[name];
    if (value !== undefined && value !== '') input[name] = value;
  }
  const validate = ajv.compile(schema);
  if (!validate(input)) throw new ConfigError((validate.errors ?? []).map(describe));
  return Object.freeze(input) as Static<S>;
}

function describe(error: ErrorObject): string {
  if (error.keyword === 'required') {
    return `${String(error.params.missingProperty)} is required`;
  }
  const name = error.instancePath.replace(/^\//, '');
  return `${name} ${error.message ?? 'is invalid'}`;
}
