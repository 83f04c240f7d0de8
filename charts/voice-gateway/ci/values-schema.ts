// The `env` sections of values.schema.json are generated from the processes' environment schemas
// (contract.ts), so the chart offers exactly the documented variables with the processes' own
// types and bounds; the rest of values.schema.json is written by hand.
import { readFile, writeFile } from 'node:fs/promises';
import { format, resolveConfig } from 'prettier';
import { PROCESSES, type ProcessContract, type VariableSchema } from './contract.js';

const KEYWORDS = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
] as const;

/** One variable as a values.schema.json property: the same type and bounds, enums spelled out. */
export function valuesProperty(variable: VariableSchema): Record<string, unknown> {
  const property: Record<string, unknown> = {};
  const literals = variable.anyOf?.map((option) => option.const);
  if (literals?.every((literal) => typeof literal === 'string')) {
    property.type = 'string';
    property.enum = literals;
  } else if (variable.type !== undefined) {
    property.type = variable.type;
  }
  for (const keyword of KEYWORDS) {
    if (variable[keyword] !== undefined) property[keyword] = variable[keyword];
  }
  const fallback =
    variable.default === undefined ? '' : ` Default: ${JSON.stringify(variable.default)}.`;
  const description = `${variable.description ?? ''}${fallback}`.trim();
  if (description !== '') property.description = description;
  return property;
}

export function envSchema(process: ProcessContract): Record<string, unknown> {
  const offered = Object.keys(process.variables)
    .filter((name) => !process.managed.includes(name) && !process.withheld.includes(name))
    .sort();
  return {
    type: 'object',
    description:
      `Environment variables of the process, by the names in ${process.doc}. The chart sets ` +
      `${process.managed.join(', ')} itself and leaves ${process.withheld.join(', ')} unset.`,
    additionalProperties: false,
    properties: Object.fromEntries(
      offered.map((name) => [name, valuesProperty(process.variables[name] ?? {})]),
    ),
  };
}

interface Schema {
  properties: Record<string, { properties: Record<string, unknown> }>;
}

/**
 * Compares the `env` sections of values.schema.json with what the process schemas give; with
 * `write`, rewrites them. Returns the problems (empty when up to date or rewritten).
 */
export async function syncValuesSchema(file: string, write: boolean): Promise<string[]> {
  const text = await readFile(file, 'utf8');
  const schema = JSON.parse(text) as Schema;
  for (const process of PROCESSES) {
    const section = schema.properties[process.valuesKey];
    if (!section) return [`values.schema.json has no properties.${process.valuesKey}`];
    section.properties.env = envSchema(process);
  }
  const options = (await resolveConfig(file)) ?? {};
  const expected = await format(JSON.stringify(schema), { ...options, filepath: file });
  if (expected === text) return [];
  if (write) {
    await writeFile(file, expected);
    return [];
  }
  return [
    "the env sections differ from the processes' environment schemas " +
      '(a variable was added, removed or changed): run `npm run chart:check -- --write`',
  ];
}
