import fc from 'fast-check';

/**
 * fast-check arbitraries for the fuzz test (openapi-fuzz.test.ts): requests to the operations of
 * docs/openapi.json, mostly shaped like what the schemas ask for, with hostile values mixed in
 * at every level (wrong types, extreme numbers, broken encodings, bad auth, odd headers).
 */

export interface JsonSchema {
  readonly type?: string;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
}

export interface Operation {
  readonly method: string;
  readonly path: string;
  readonly parameters: readonly { name: string; in: string; schema: JsonSchema }[];
  readonly body: JsonSchema | undefined;
  readonly security: 'admin' | 'app' | 'none';
  readonly responses: readonly string[];
}

interface Document {
  readonly paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Operation['parameters'];
        requestBody?: { content: Record<string, { schema: JsonSchema }> };
        security?: Record<string, string[]>[];
        responses: Record<string, unknown>;
      }
    >
  >;
}

/** Every operation of the document. */
export function operationsOf(document: Document): Operation[] {
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, op]) => {
      const schemes = Object.keys(op.security?.[0] ?? {});
      return {
        method: method.toUpperCase(),
        path,
        parameters: op.parameters ?? [],
        body: op.requestBody?.content['application/json']?.schema,
        security: schemes.includes('adminKey') ? 'admin' : schemes.length ? 'app' : 'none',
        responses: Object.keys(op.responses),
      };
    }),
  );
}

/** Values that have broken parsers, validators and Redis commands before. */
const NASTY_NUMBERS = [0, -1, 1e99, -1e99, 1.5, 2 ** 53, -(2 ** 53), 1e308, Number.MIN_VALUE];
const NASTY_TEXT = [
  '1e99',
  '1'.repeat(105),
  '-1',
  'NaN',
  'Infinity',
  '0x1f',
  ' 5',
  '',
  '%ff%fe',
  '%',
  '%zz',
  '%00',
  '..',
  '%2e%2e%2f',
  'a'.repeat(101),
  'a'.repeat(4000),
  '__proto__',
  'constructor',
  '🙂',
  '\u0000',
];

const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(...NASTY_NUMBERS, ...NASTY_TEXT),
);

/** A value for `schema`, mostly valid, hostile now and then (at every level). */
export function valueFor(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (schema === undefined || depth > 4) return hostileJson;
  return fc.oneof(
    { weight: 12, arbitrary: shapedValue(schema, depth) },
    { weight: 1, arbitrary: hostileJson },
  );
}

function shapedValue(schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((s) => valueFor(s, depth + 1)));
  switch (schema.type) {
    case 'string': {
      const max = Math.min(schema.maxLength ?? 64, 256);
      const text = schema.pattern
        ? fc.stringMatching(new RegExp(schema.pattern)).map((s) => s.slice(0, max))
        : fc.string({ minLength: schema.minLength ?? 0, maxLength: max });
      return text;
    }
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? -1e6;
      const max = schema.maximum ?? 1e6;
      return schema.type === 'integer'
        ? fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31) })
        : fc.double({ min, max, noNaN: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(valueFor(schema.items, depth + 1), {
        minLength: Math.min(schema.minItems ?? 0, 3),
        maxLength: Math.min(schema.maxItems ?? 3, 3),
      });
    case 'object': {
      const properties = Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([k, s]) => [k, valueFor(s, depth + 1)]),
      );
      const shaped = fc.record(properties, { requiredKeys: [...(schema.required ?? [])] });
      // Sometimes a property the schema does not know.
      return fc.oneof(
        { weight: 9, arbitrary: shaped },
        {
          weight: 1,
          arbitrary: fc
            .tuple(shaped, fc.string({ maxLength: 12 }), hostileJson)
            .map(([o, k, v]) => ({ ...o, [k]: v })),
        },
      );
    }
    default:
      return hostileJson;
  }
}

/** Raw request bodies: JSON shaped by the schema, any JSON, and text no parser expects. */
export function bodyFor(schema: JsonSchema | undefined): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 6, arbitrary: valueFor(schema).map((v) => JSON.stringify(v)) },
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 64 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{"__proto__":{"polluted":1}}',
        '{"constructor":{"prototype":{"polluted":1}}}',
        '{"limit":1e400,"position_ms":1e400,"volume":-1e400}',
        `${'['.repeat(5000)}${']'.repeat(5000)}`,
        `${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}`,
        '{',
        'null',
        '"text"',
        ' ',
        '\u0000',
        '\ufeff{}',
        `{"urls":["https://x/${'a'.repeat(70_000)}"]}`,
      ),
    },
  );
}

/**
 * A path value: the fixture's own id (the first of `valid`) most often, another fixture id, a
 * made-up string, or a known troublemaker.
 */
export function pathValue(valid: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(valid[0] ?? '') },
    { weight: 2, arbitrary: fc.constantFrom(...valid) },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map(encodeURIComponent) },
    { weight: 1, arbitrary: fc.constantFrom(...NASTY_TEXT.map(rawSafe)) },
  );
}

/** What undici lets through as a path: printable, no spaces; the rest percent-encoded. */
const rawSafe = (text: string) => text.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));

export function queryFor(operation: Operation): fc.Arbitrary<string> {
  const params = operation.parameters.filter((p) => p.in === 'query');
  const pairs = params.map((p) =>
    fc.option(
      fc.oneof(
        valueFor(p.schema).map((v) =>
          encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v)),
        ),
        fc.constantFrom(...NASTY_TEXT.map(rawSafe)),
      ),
      { nil: undefined },
    ),
  );
  const extra = fc.option(fc.constantFrom('x=1', 'limit=1&limit=2', '%ff=1', '&&', '='), {
    nil: undefined,
  });
  return fc.tuple(fc.tuple(...pairs), extra).map(([values, more]) => {
    const parts = values.flatMap((v, i) => (v === undefined ? [] : [`${params[i]?.name}=${v}`]));
    if (more !== undefined) parts.push(more);
    return parts.length ? `?${parts.join('&')}` : '';
  });
}

const TOKEN = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/);
const FIELD_VALUE = fc.stringMatching(/^[\x20-\x7e]{0,200}$/).map((s) => s.trim());
/** Headers undici sets itself or refuses to send as given. */
const RESERVED = new Set([
  'content-length',
  'transfer-encoding',
  'host',
  'connection',
  'upgrade',
  'keep-alive',
  'expect',
  'te',
  'trailer',
]);

export const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=latin1',
  'application/jsonx',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '',
];

/** Headers: auth as given, a content type, and a few random ones. */
export function headersFor(auth: fc.Arbitrary<Record<string, string>>) {
  return fc
    .tuple(
      auth,
      fc.oneof(
        { weight: 8, arbitrary: fc.constant('application/json') },
        { weight: 1, arbitrary: fc.constant(undefined) },
        { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
      ),
      fc.dictionary(
        TOKEN.filter((t) => !RESERVED.has(t)),
        FIELD_VALUE,
        { maxKeys: 3 },
      ),
    )
    .map(([given, contentType, extra]) => ({
      ...extra,
      ...given,
      ...(contentType === undefined ? {} : { 'content-type': contentType }),
    }));
}
