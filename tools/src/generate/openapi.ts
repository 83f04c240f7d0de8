import { fileURLToPath } from 'node:url';
import { spawnRedis } from '../redis-server.js';
import { generatedFileScript, type GeneratedFile } from './generated-file.js';
import { buildApp, loadApiConfig, type App } from '@voicegw/api';

/**
 * `npm run openapi` writes docs/openapi.json from the route schemas; `npm run openapi:check`
 * (CI) fails when the committed file differs from what the routes generate.
 */

export const OPENAPI_FILE = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));

/** Top-level members in the order the OpenAPI specification lists them; all else is sorted. */
const TOP_LEVEL = ['openapi', 'info', 'jsonSchemaDialect', 'servers', 'tags', 'paths'];

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>);
  return Object.fromEntries(
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, sortKeys(v)]),
  );
}

/**
 * The committed form of the document: keys sorted (so moving a route registration or a schema
 * property does not churn the diff), 2-space JSON, trailing newline.
 */
export function serializeOpenApi(document: object): string {
  const sorted = sortKeys(document) as Record<string, unknown>;
  const rank = (key: string): number => {
    const i = TOP_LEVEL.indexOf(key);
    return i === -1 ? TOP_LEVEL.length : i;
  };
  const ordered = Object.fromEntries(Object.entries(sorted).sort(([a], [b]) => rank(a) - rank(b)));
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

/** The document of an app that is already built (tests use their own app). */
export async function openApiText(app: App): Promise<string> {
  await app.ready();
  return serializeOpenApi(app.swagger());
}

/** Builds the api against a throwaway redis-server (buildApp connects to Redis) and renders. */
export async function generateOpenApi(): Promise<string> {
  const redis = await spawnRedis({ appendOnly: false });
  try {
    // An explicit environment: the document must not depend on the caller's settings.
    const app = await buildApp({
      config: loadApiConfig({ REDIS_URL: redis.url, REDIS_PREFIX: 'openapi' }),
    });
    try {
      return await openApiText(app);
    } finally {
      await app.close();
    }
  } finally {
    await redis.stop();
  }
}

/** "METHOD path" of every operation, to say what changed in a drift report. */
function operations(text: string): Map<string, string> {
  const ops = new Map<string, string>();
  try {
    const doc = JSON.parse(text) as { paths?: Record<string, Record<string, unknown>> };
    for (const [path, methods] of Object.entries(doc.paths ?? {})) {
      for (const [method, op] of Object.entries(methods)) {
        ops.set(`${method.toUpperCase()} ${path}`, JSON.stringify(op));
      }
    }
  } catch {
    // An unparseable committed file is reported as a whole below.
  }
  return ops;
}

function describeDrift(committed: string, generated: string): string {
  const before = operations(committed);
  const after = operations(generated);
  const lines: string[] = [];
  for (const op of after.keys()) if (!before.has(op)) lines.push(`  + ${op}`);
  for (const op of before.keys()) if (!after.has(op)) lines.push(`  - ${op}`);
  for (const [op, schema] of after) {
    if (before.has(op) && before.get(op) !== schema) lines.push(`  ~ ${op}`);
  }
  if (lines.length === 0)
    lines.push('  (changes outside the operations: info, tags or components)');
  return lines.join('\n');
}

export const OPENAPI_DOCUMENT: GeneratedFile = {
  path: OPENAPI_FILE,
  name: 'docs/openapi.json',
  source: 'the route schemas',
  command: 'npm run openapi',
  describeDrift,
};

generatedFileScript(import.meta.url, OPENAPI_DOCUMENT, generateOpenApi);
