import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { checkGenerated } from '@voicegw/tools';
import { beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_DOCUMENT, OPENAPI_FILE, openApiText } from '@voicegw/tools/generate';
import { ERRORS } from '../src/errors/catalogue.js';
import { useApi } from './helpers.js';

interface Operation {
  readonly security?: Record<string, string[]>[];
  readonly tags?: string[];
  readonly summary?: string;
  readonly requestBody?: {
    readonly required: boolean;
    readonly content: Record<string, { schema: JsonSchema }>;
  };
  readonly parameters?: { name: string; in: string; required: boolean }[];
  readonly responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
}
interface JsonSchema {
  readonly required?: string[];
  readonly properties?: Record<string, unknown>;
  readonly enum?: unknown[];
}
interface Document {
  readonly openapi: string;
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: {
    securitySchemes: Record<string, unknown>;
    schemas: Record<string, JsonSchema>;
  };
}

// The contract's 17 session commands, the two of media streams, and every other endpoint.
const COMMANDS = [
  'answer',
  'hangup',
  'disconnect',
  'playback/start',
  'playback/stop',
  'playback/pause',
  'playback/resume',
  'playback/seek',
  'playback/restart',
  'playback/silence',
  'play_and_get_digits',
  'record/start',
  'record/stop',
  'conference/join',
  'conference/leave',
  'conference/mute',
  'conference/unmute',
  'stream/start',
  'stream/stop',
];
const APP_ROUTES = [
  ...COMMANDS.map((c) => `POST /api/v1/sessions/{uuid}/commands/${c}`),
  'POST /api/v1/conferences',
  'GET /api/v1/conferences',
  'GET /api/v1/conferences/{room_id}',
  'GET /api/v1/conferences/{room_id}/members',
  'DELETE /api/v1/conferences/{room_id}',
  'POST /api/v1/conferences/{room_id}/play',
  'POST /api/v1/conferences/{room_id}/pause',
  'POST /api/v1/conferences/{room_id}/stop',
  'POST /api/v1/conferences/{room_id}/volume',
  'POST /api/v1/dial',
  'GET /api/v1/dial/{session_uuid}',
  'GET /api/v1/sessions',
  'GET /api/v1/sessions/{uuid}',
  'GET /api/v1/sessions/{uuid}/recording/file.wav',
  'GET /api/v1/sessions/{uuid}/recording/{recording_id}.wav',
];
const ADMIN_ROUTES = [
  'POST /admin/apps/{app_id}',
  'GET /admin/apps/{app_id}',
  'DELETE /admin/apps/{app_id}',
  'GET /admin/health',
  'GET /admin/recent-errors',
  'PUT /admin/apps/{app_id}/cids',
  'GET /admin/apps/{app_id}/cids',
  'DELETE /admin/apps/{app_id}/cids/{number}',
  'PUT /admin/apps/{app_id}/dids',
  'GET /admin/apps/{app_id}/dids',
  'DELETE /admin/apps/{app_id}/dids/{number}',
];

const api = useApi();
let served: Document;

beforeAll(async () => {
  const res = await api.app.inject({ method: 'GET', url: '/docs/json' });
  expect(res.statusCode).toBe(200);
  served = res.json<Document>();
});

const operation = (route: string): Operation | undefined => {
  const [method = '', path = ''] = route.split(' ');
  return served.paths[path]?.[method.toLowerCase()];
};

describe('OpenAPI document at /docs/json', () => {
  it('is OpenAPI 3.1.0 with the app, API key and admin key security schemes', () => {
    expect(served.openapi).toBe('3.1.0');
    expect(served.components.securitySchemes).toEqual({
      appId: { type: 'apiKey', in: 'header', name: 'X-App-ID' },
      apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      adminKey: { type: 'apiKey', in: 'header', name: 'X-Admin-API-Key' },
    });
  });

  it.each(APP_ROUTES)('documents %s with X-App-ID and X-API-Key security', (route) => {
    const op = operation(route);
    expect(op, `${route} is missing from the document`).toBeDefined();
    expect(op?.security).toEqual([{ appId: [], apiKey: [] }]);
    expect(op?.summary).toEqual(expect.any(String));
    expect(op?.tags).toHaveLength(1);
  });

  it.each(ADMIN_ROUTES)('documents %s with X-Admin-API-Key security', (route) => {
    const op = operation(route);
    expect(op, `${route} is missing from the document`).toBeDefined();
    expect(op?.security).toEqual([{ adminKey: [] }]);
    expect(op?.tags).toEqual(['admin']);
  });

  it('documents GET /health without authentication', () => {
    const op = operation('GET /health');
    expect(op).toBeDefined();
    expect(op?.security).toBeUndefined();
  });

  it('every error body requires `code`, one of the ErrorCode enum of every catalogue code', () => {
    const codes = served.components.schemas.ErrorCode?.enum;
    expect(codes).toHaveLength(Object.keys(ERRORS).length);
    expect(codes).toEqual(
      expect.arrayContaining(['cid_not_allowed', 'no_fs_capacity', 'route_not_found']),
    );
    const bodies = Object.entries(served.paths).flatMap(([path, operations]) =>
      Object.entries(operations).flatMap(([method, op]) =>
        Object.entries(op.responses)
          // /health answers its readiness, not an error; an expired recording has no body.
          .filter(
            ([status, response]) => /^[45]/.test(status) && path !== '/health' && response.content,
          )
          .map(
            ([status, response]) =>
              [
                `${method} ${path} ${status}`,
                response.content?.['application/json']?.schema,
              ] as const,
          ),
      ),
    );
    expect(bodies.length).toBeGreaterThan(80);
    for (const [name, schema] of bodies) {
      expect([name, schema?.required]).toEqual([
        name,
        expect.arrayContaining(['success', 'error', 'code']),
      ]);
      expect([name, schema?.properties?.code]).toEqual([
        name,
        { $ref: '#/components/schemas/ErrorCode' },
      ]);
    }
  });

  it('does not list the documentation routes themselves', () => {
    expect(Object.keys(served.paths).filter((p) => p.startsWith('/docs'))).toEqual([]);
  });

  it('lists fields that have a default as optional (dial timeout_sec, list limit)', () => {
    const dial = operation('POST /api/v1/dial')?.requestBody;
    expect(dial?.required).toBe(true);
    expect(dial?.content['application/json']?.schema.required).toEqual(['to', 'from']);
    const limit = operation('GET /api/v1/conferences')?.parameters?.find((p) => p.name === 'limit');
    expect(limit?.required).toBe(false);
  });

  it('documents the media stream commands: bodies, 202, and the errors clients handle', () => {
    const start = operation('POST /api/v1/sessions/{uuid}/commands/stream/start');
    const stop = operation('POST /api/v1/sessions/{uuid}/commands/stream/stop');
    expect(start?.requestBody?.required).toBe(true);
    expect(start?.requestBody?.content['application/json']?.schema.required).toEqual(['url']);
    expect(
      Object.keys(start?.requestBody?.content['application/json']?.schema.properties ?? {}),
    ).toEqual(['command_uid', 'url', 'track', 'bidirectional', 'custom_parameters']);
    expect(stop?.requestBody?.required).toBe(false);
    for (const op of [start, stop]) {
      expect(Object.keys(op?.responses ?? {}).sort()).toEqual([
        '202',
        '400',
        '404',
        '409',
        '422',
        '429',
        '4XX',
        '5XX',
      ]);
    }
  });

  it('marks optional bodies as optional (hangup) and required ones as required', () => {
    expect(operation('POST /api/v1/sessions/{uuid}/commands/hangup')?.requestBody?.required).toBe(
      false,
    );
    expect(
      operation('POST /api/v1/sessions/{uuid}/commands/playback/start')?.requestBody?.required,
    ).toBe(true);
    expect(JSON.stringify(served)).not.toContain('x-voicegw-');
  });
});

describe('committed docs/openapi.json', () => {
  it('equals the document the route schemas generate (run `npm run openapi` when not)', async () => {
    const generated = await openApiText(api.app);
    const committed = await readFile(OPENAPI_FILE, 'utf8');
    expect(JSON.parse(committed)).toEqual(JSON.parse(generated));
    expect(committed).toBe(generated);
  });

  it('is reported as drifted, naming the command that fixes it, when it differs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'voicegw-openapi-'));
    try {
      const generated = await openApiText(api.app);
      const stale = JSON.parse(generated) as Document;
      delete stale.paths['/api/v1/dial'];
      const file = join(dir, 'openapi.json');
      await writeFile(file, `${JSON.stringify(stale, null, 2)}\n`);
      const result = await checkGenerated(OPENAPI_DOCUMENT, generated, file);
      expect(result.upToDate).toBe(false);
      expect(result.message).toContain('+ POST /api/v1/dial');
      expect(result.message).toContain('Run `npm run openapi` and commit docs/openapi.json.');
      expect(await checkGenerated(OPENAPI_DOCUMENT, generated, join(dir, 'absent.json'))).toEqual({
        upToDate: false,
        message:
          'docs/openapi.json is missing.\nRun `npm run openapi` and commit docs/openapi.json.',
      });
      expect((await checkGenerated(OPENAPI_DOCUMENT, generated)).upToDate).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('`npm run openapi:check` exits 0 on the committed file', async () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'tools/src/generate/openapi.ts', '--check'],
      { cwd: root },
    );
    expect(stdout).toContain('docs/openapi.json is up to date');
  }, 30_000);
});
