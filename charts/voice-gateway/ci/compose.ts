// charts/compose: the laptop setup. Its FreeSWITCH configuration is the chart's, rendered with
// charts/compose/freeswitch-values.yaml into plain files (so the two cannot drift apart), and the
// environment of its api, dispatcher and media node obeys the same contract as the chart's.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { PROCESSES } from './contract.js';
import { checkProcessEnv } from './env-check.js';
import { ROOT, template } from './helm.js';

export const COMPOSE = `${ROOT}charts/compose/`;
const FREESWITCH = `${COMPOSE}freeswitch/`;

interface Rendered {
  readonly kind: string;
  readonly data?: Record<string, string>;
}

/** Whether charts/compose/freeswitch-values.yaml turns media streams on (mediaStreams.enabled). */
export async function composeMediaStreams(): Promise<boolean> {
  const values = parse(await readFile(`${COMPOSE}freeswitch-values.yaml`, 'utf8')) as {
    mediaStreams?: { enabled?: unknown };
  } | null;
  return values?.mediaStreams?.enabled === true;
}

/** The files of /etc/freeswitch as the chart mounts them: its ConfigMap. */
async function renderedFreeswitch(): Promise<Map<string, string>> {
  const result = await template([
    '-f',
    `${COMPOSE}freeswitch-values.yaml`,
    '--show-only',
    'templates/freeswitch-config.yaml',
  ]);
  if (!result.ok)
    throw new Error(`helm template of the FreeSWITCH config failed: ${result.stderr}`);
  const files = new Map<string, string>();
  for (const document of parseAllDocuments(result.stdout)) {
    const object = document.toJS() as Rendered | null;
    if (object?.kind === 'ConfigMap') {
      for (const [name, text] of Object.entries(object.data ?? {})) files.set(name, text);
    }
  }
  return files;
}

async function present(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(dir, path), await readFile(path, 'utf8'));
  }
  return files;
}

/** Compares charts/compose/freeswitch/ with the chart's rendering; with `write`, rewrites it. */
export async function syncComposeFreeswitch(write: boolean): Promise<string[]> {
  const expected = await renderedFreeswitch();
  const actual = await present(FREESWITCH);
  const differ = [...new Set([...expected.keys(), ...actual.keys()])].filter(
    (name) => expected.get(name) !== actual.get(name),
  );
  if (differ.length === 0) return [];
  if (!write) {
    return [
      `charts/compose/freeswitch/ differs from the chart's FreeSWITCH config (${differ.join(', ')}): ` +
        'run `npm run chart:check -- --write`',
    ];
  }
  await rm(FREESWITCH, { recursive: true, force: true });
  for (const [name, text] of expected) {
    await mkdir(dirname(`${FREESWITCH}${name}`), { recursive: true });
    await writeFile(`${FREESWITCH}${name}`, text);
  }
  return [];
}

/**
 * `${NAME}`, `${NAME:-default}`, `${NAME-default}`, `${NAME:?error}`, `${NAME?error}` as
 * docker compose resolves them with the variables `env` (its shell and .env).
 */
export function interpolate(value: string, env: Readonly<Record<string, string>> = {}): string {
  return value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g,
    (_match, name: string, colon?: string, kind?: string, word?: string) => {
      const set = env[name];
      const missing = set === undefined || (colon === ':' && set === '');
      if (!missing || kind === undefined) return set ?? '';
      if (kind === '?') throw new Error(`docker compose refuses to start: ${word ?? name}`);
      return word ?? '';
    },
  );
}

interface ComposeFile {
  readonly services: Record<string, { readonly environment?: Record<string, unknown> }>;
}

/** The compose services' environments against their processes' contracts. */
export async function checkComposeEnvironment(): Promise<string[]> {
  const compose = parse(await readFile(`${COMPOSE}docker-compose.yml`, 'utf8')) as ComposeFile;
  const problems: string[] = [];
  for (const process of PROCESSES) {
    const service = compose.services[process.composeService];
    if (!service) {
      problems.push(`docker-compose.yml has no service ${process.composeService}`);
      continue;
    }
    const variables = Object.entries(service.environment ?? {}).map(
      ([name, value]) => [name, interpolate(String(value))] as const,
    );
    problems.push(
      ...checkProcessEnv(process, variables, `docker-compose.yml ${process.composeService}`),
    );
  }
  return problems;
}
