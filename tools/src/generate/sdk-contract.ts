// Writes sdk/src/contract.ts, the SDK's request, response and event types, from the schemas the
// gateway validates with: the route schemas as `npm run openapi` writes them into
// docs/openapi.json, and shared's event payload schemas. `--check` fails when the committed file
// differs (run by `npm run openapi:check` and sdk/test/contract.test.ts), so the two cannot drift.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { EVENT_NAMES, EventPayloadSchemas } from '@voicegw/shared';
import { generatedFileScript, type GeneratedFile } from './generated-file.js';
import { format, resolveConfig } from 'prettier';
import { declaration, typeOf, type NamedSchemas } from './schema-to-ts.js';

export const CONTRACT_FILE = fileURLToPath(
  new URL('../../../sdk/src/contract.ts', import.meta.url),
);
const CONTRACT: GeneratedFile = {
  path: CONTRACT_FILE,
  name: 'sdk/src/contract.ts',
  source: 'docs/openapi.json and the event schemas',
  command: 'npm run openapi',
};
const OPENAPI_FILE = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));

type Json = Record<string, unknown>;
interface Parameter {
  readonly name: string;
  readonly in: string;
  readonly required?: boolean;
  readonly description?: string;
  readonly schema: Json;
}
interface Operation {
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: { content: Record<string, { schema: Json }> };
  readonly responses: Record<string, { content?: Record<string, { schema: Json }> }>;
}
type Paths = Record<string, Record<string, Operation>>;

/** A named type: the body, the query or one response of an operation. */
type Part = 'body' | 'query' | `${number}`;
const NAMED: ReadonlyArray<readonly [string, string, Part]> = [
  ['CreateConferenceRequest', 'POST /api/v1/conferences', 'body'],
  ['ConferenceCreated', 'POST /api/v1/conferences', '201'],
  ['ConferenceListQuery', 'GET /api/v1/conferences', 'query'],
  ['ConferenceList', 'GET /api/v1/conferences', '200'],
  ['ConferenceStatus', 'GET /api/v1/conferences/{room_id}', '200'],
  ['ConferenceDeleted', 'DELETE /api/v1/conferences/{room_id}', '200'],
  ['MemberListQuery', 'GET /api/v1/conferences/{room_id}/members', 'query'],
  ['MemberList', 'GET /api/v1/conferences/{room_id}/members', '200'],
  ['ConferencePlayRequest', 'POST /api/v1/conferences/{room_id}/play', 'body'],
  ['ConferenceVolumeRequest', 'POST /api/v1/conferences/{room_id}/volume', 'body'],
  ['ConferenceControlAccepted', 'POST /api/v1/conferences/{room_id}/play', '202'],
  ['DialRequest', 'POST /api/v1/dial', 'body'],
  ['DialPlaced', 'POST /api/v1/dial', '202'],
  ['DialStatus', 'GET /api/v1/dial/{session_uuid}', '200'],
  ['SessionListQuery', 'GET /api/v1/sessions', 'query'],
  ['SessionList', 'GET /api/v1/sessions', '200'],
  ['Session', 'GET /api/v1/sessions/{uuid}', '200'],
  ['AppConfigRequest', 'POST /admin/apps/{app_id}', 'body'],
  ['AppSaved', 'POST /admin/apps/{app_id}', '200'],
  ['AppConfig', 'GET /admin/apps/{app_id}', '200'],
  ['AppDeleted', 'DELETE /admin/apps/{app_id}', '200'],
  ['NumberList', 'PUT /admin/apps/{app_id}/cids', 'body'],
  ['CallerIdList', 'GET /admin/apps/{app_id}/cids', '200'],
  ['CallerIdDeleted', 'DELETE /admin/apps/{app_id}/cids/{number}', '200'],
  ['DidList', 'GET /admin/apps/{app_id}/dids', '200'],
  ['DidDeleted', 'DELETE /admin/apps/{app_id}/dids/{number}', '200'],
  ['DeadLetterQuery', 'GET /admin/apps/{app_id}/dead-letters', 'query'],
  ['DeadLetterList', 'GET /admin/apps/{app_id}/dead-letters', '200'],
  ['ReplayRequest', 'POST /admin/apps/{app_id}/dead-letters/replay', 'body'],
  ['ReplayResult', 'POST /admin/apps/{app_id}/dead-letters/replay', '200'],
  ['WebhookRetryResult', 'POST /admin/apps/{app_id}/webhooks/retry', '202'],
  ['AdminHealth', 'GET /admin/health', '200'],
  ['RecentErrors', 'GET /admin/recent-errors', '200'],
];

const COMMANDS_PREFIX = '/api/v1/sessions/{uuid}/commands/';

function schemaOf(paths: Paths, route: string, part: Part): Json {
  const [method = '', path = ''] = route.split(' ');
  const operation = paths[path]?.[method.toLowerCase()];
  if (!operation) throw new Error(`${route} is not in docs/openapi.json`);
  if (part === 'query') {
    const query = (operation.parameters ?? []).filter((p) => p.in === 'query');
    return {
      type: 'object',
      properties: Object.fromEntries(
        query.map((p) => [
          p.name,
          { ...p.schema, description: p.description ?? p.schema.description },
        ]),
      ),
      required: query.filter((p) => p.required).map((p) => p.name),
    };
  }
  const content =
    part === 'body' ? operation.requestBody?.content : operation.responses[part]?.content;
  const schema = content?.['application/json']?.schema;
  if (!schema) throw new Error(`${route} has no JSON ${part}`);
  return schema;
}

/**
 * The named types of objects (or unions of them) by their schema's text, the first name of a
 * schema winning; a scalar stays spelled out wherever it is met.
 */
function namedSchemas(declared: ReadonlyArray<readonly [string, Json]>): NamedSchemas {
  const named = new Map<string, string>();
  for (const [name, schema] of declared) {
    const text = JSON.stringify(schema);
    const shaped = schema.type === 'object' || 'anyOf' in schema || 'oneOf' in schema;
    if (shaped && !named.has(text)) named.set(text, name);
  }
  return named;
}

/** The commands' bodies and answers, as maps keyed by command name. */
function commandMaps(paths: Paths, named: NamedSchemas): string {
  const commands = Object.keys(paths)
    .filter((path) => path.startsWith(COMMANDS_PREFIX))
    .map((path) => path.slice(COMMANDS_PREFIX.length))
    .sort();
  const bodies = commands.map(
    (c) =>
      `  ${JSON.stringify(c)}: ${typeOf(schemaOf(paths, `POST ${COMMANDS_PREFIX}${c}`, 'body'), '  ', named)};\n`,
  );
  const answers = commands.map((c) => {
    const { responses } = paths[`${COMMANDS_PREFIX}${c}`]?.post ?? { responses: {} };
    const ok = Object.keys(responses).filter((status) => /^2\d\d$/.test(status));
    const types = ok.map((status) =>
      typeOf(schemaOf(paths, `POST ${COMMANDS_PREFIX}${c}`, status as Part), '  ', named),
    );
    return `  ${JSON.stringify(c)}: ${[...new Set(types)].join(' | ')};\n`;
  });
  return (
    `/** The body of every session command (each may carry \`command_uid\`). */\n` +
    `export interface SessionCommandBodies {\n${bodies.join('')}}\n\n` +
    `/** The 2xx answer of every session command. */\n` +
    `export interface SessionCommandAnswers {\n${answers.join('')}}\n`
  );
}

function eventMap(named: NamedSchemas): string {
  const entries = EVENT_NAMES.map(
    (name) => `  ${JSON.stringify(name)}: ${typeOf(EventPayloadSchemas[name], '  ', named)};\n`,
  );
  return `/** The payload of every event, by name (the contract's fields; the envelope is added in webhooks.ts). */\nexport interface EventPayloads {\n${entries.join('')}}\n`;
}

export async function contractText(): Promise<string> {
  const document = JSON.parse(await readFile(OPENAPI_FILE, 'utf8')) as {
    paths: Paths;
    components?: { schemas?: Record<string, Json> };
  };
  const { paths } = document;
  // The document's components (the error codes), under their names: references print so.
  const components = Object.entries(document.components?.schemas ?? {});
  const declared = NAMED.map(
    ([name, route, part]) => [name, schemaOf(paths, route, part)] as const,
  );
  const named = namedSchemas(declared);
  const text = [
    "// Generated by tools/src/generate/sdk-contract.ts from docs/openapi.json (the api's route schemas) and",
    "// shared's event payload schemas. Do not edit: run `npm run openapi`.",
    '',
    ...components.map(([name, schema]) => declaration(name, schema)),
    ...declared.map(([name, schema]) => declaration(name, schema, named)),
    commandMaps(paths, named),
    eventMap(named),
  ].join('\n');
  const options = await resolveConfig(CONTRACT_FILE);
  return format(text, { ...options, parser: 'typescript' });
}

generatedFileScript(import.meta.url, CONTRACT, contractText);
