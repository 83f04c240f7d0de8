import { Ajv } from 'ajv';
import fp from 'fastify-plugin';

/**
 * Bodies are validated strictly (no type coercion, unknown fields rejected, defaults applied);
 * query strings and path parameters are coerced from their string form.
 */
export default fp(
  async (app) => {
    const common = {
      useDefaults: true,
      removeAdditional: false,
      allErrors: false,
      strict: false,
    } as const;
    const strict = new Ajv({ ...common, coerceTypes: false });
    const coercing = new Ajv({ ...common, coerceTypes: 'array' });
    app.setValidatorCompiler(({ schema, httpPart }) =>
      (httpPart === 'body' ? strict : coercing).compile(schema),
    );
  },
  { name: 'validators' },
);
