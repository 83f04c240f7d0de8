// A JSON Schema → TypeScript printer for the schemas the api validates with (TypeBox output,
// as @fastify/swagger writes it into docs/openapi.json): objects, arrays, records, literals,
// enums, unions, nullables and references to the document's components, which is all those
// schemas use.

type Json = Record<string, unknown>;

/**
 * Named types by their schema's JSON: a schema met inside another that is exactly a named one
 * (a list's items, a command's answer) prints as that name, not again in full. The openapi
 * document inlines every schema but its components (the error codes), so equal text is how a
 * shared one shows.
 */
export type NamedSchemas = ReadonlyMap<string, string>;

const NONE: NamedSchemas = new Map();

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const COMPONENT = /^#\/components\/schemas\/([A-Za-z_$][\w$]*)$/;
const key = (name: string): string => (IDENTIFIER.test(name) ? name : JSON.stringify(name));

/** A `/** … *\/` line for a description, or nothing. */
function doc(schema: unknown, indent: string): string {
  if (!isObject(schema) || typeof schema.description !== 'string') return '';
  return `${indent}/** ${schema.description.replaceAll('*/', '* /')} */\n`;
}

export function typeOf(schema: unknown, indent = '', named = NONE): string {
  if (!isObject(schema)) return 'unknown';
  return named.get(JSON.stringify(schema)) ?? structure(schema, indent, named);
}

function structure(schema: Json, indent: string, named: NamedSchemas): string {
  // A component prints as its name: the contract declares each under it.
  if (typeof schema.$ref === 'string') {
    const component = COMPONENT.exec(schema.$ref)?.[1];
    if (component === undefined) throw new Error(`unsupported $ref ${schema.$ref}`);
    return component;
  }
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  const variants = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(variants)) {
    return [...new Set(variants.map((v) => typeOf(v, indent, named)))].join(' | ');
  }
  if (Array.isArray(schema.allOf)) {
    return schema.allOf.map((v) => typeOf(v, indent, named)).join(' & ');
  }
  if (Array.isArray(schema.type)) {
    return schema.type
      .map((t: unknown) => structure({ ...schema, type: t }, indent, named))
      .join(' | ');
  }
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const item = typeOf(schema.items, indent, named);
      return /^[\w.]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
    }
    case 'object':
      return objectType(schema, indent, named);
    default:
      return 'unknown';
  }
}

function objectType(schema: Json, indent: string, named: NamedSchemas): string {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const inner = `${indent}  `;
  const lines = Object.entries(properties).map(
    ([name, property]) =>
      `${doc(property, inner)}${inner}${key(name)}${required.has(name) ? '' : '?'}: ${typeOf(property, inner, named)};\n`,
  );
  const extra = schema.additionalProperties;
  if (extra === true || isObject(extra)) {
    const value =
      isObject(extra) && Object.keys(extra).length > 0 ? typeOf(extra, inner, named) : 'unknown';
    if (lines.length === 0) return `Record<string, ${value}>`;
    lines.push(`${inner}[key: string]: unknown;\n`);
  }
  if (lines.length === 0) return 'Record<string, never>';
  return `{\n${lines.join('')}${indent}}`;
}

/**
 * `export type Name = …;` with the schema's description above it, spelled out (not as another
 * name for the same schema), with the named types inside it by name.
 */
export function declaration(name: string, schema: Json, named = NONE): string {
  return `${doc(schema, '')}export type ${name} = ${structure(schema, '', named)};\n`;
}
