import type { SwaggerTransform, SwaggerTransformObject } from '@fastify/swagger';

/**
 * What the route schemas mean, as the OpenAPI document must say it. Two things a schema states
 * for ajv's sake would otherwise mislead clients (and client generators):
 * - a property with a `default` is listed in `required` (TypeBox does that; ajv fills the default
 *   before checking), but a client may omit it: `timeout_sec` of dial, `limit` of a list;
 * - @fastify/swagger marks every request body required, but routes whose body is optional
 *   (route config `body` other than `required`, e.g. hangup's `cause`) accept none at all.
 */

type Json = Record<string, unknown>;

/** Copied by @fastify/swagger from the route schema onto the operation, removed below. */
const OPTIONAL_BODY = 'x-voicegw-optional-body';

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A copy of a JSON schema in which no property that has a default is listed as required. */
export function defaultsNotRequired(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(defaultsNotRequired);
  if (!isObject(schema)) return schema;
  const copy: Json = Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, defaultsNotRequired(value)]),
  );
  const properties = copy.properties;
  if (isObject(properties) && Array.isArray(copy.required)) {
    const required = copy.required.filter((name) => {
      const property = properties[String(name)];
      return !(isObject(property) && 'default' in property);
    });
    if (required.length > 0) copy.required = required;
    else delete copy.required;
  }
  return copy;
}

/** Per route: optional fields stay optional; an optional body is marked for `documentObject`. */
export const documentRoute: SwaggerTransform = ({ schema, url, route }) => {
  if (!isObject(schema)) return { schema, url };
  const documented: Json = { ...schema };
  if (schema.body !== undefined) documented.body = defaultsNotRequired(schema.body);
  if (schema.querystring !== undefined) {
    documented.querystring = defaultsNotRequired(schema.querystring);
  }
  if (schema.body !== undefined && route.config?.body !== 'required') {
    documented[OPTIONAL_BODY] = true;
  }
  return { schema: documented, url };
};

/** Whole document: bodies of routes marked by `documentRoute` are not required. */
export const documentObject: SwaggerTransformObject = (document) => {
  if (!('openapiObject' in document)) return document.swaggerObject;
  const { openapiObject } = document;
  for (const operations of Object.values(openapiObject.paths ?? {})) {
    for (const value of Object.values(operations ?? {})) {
      const operation: unknown = value;
      if (!isObject(operation) || operation[OPTIONAL_BODY] === undefined) continue;
      delete operation[OPTIONAL_BODY];
      if (isObject(operation.requestBody)) operation.requestBody.required = false;
    }
  }
  return openapiObject;
};
