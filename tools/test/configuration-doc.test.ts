import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import {
  checkGenerated,
  CONFIG_SCHEMAS,
  CONFIGURATION_PAGES,
  renderConfigurationPage,
  type ConfigSchemas,
  type ConfigurationPage,
} from '@voicegw/tools/generate';

const pageNamed = (name: string): ConfigurationPage => {
  const page = CONFIGURATION_PAGES.find((candidate) => candidate.name === name);
  if (!page) throw new Error(`no configuration page ${name}`);
  return page;
};
const CONFIGURATION = pageNamed('docs/configuration.md');
const committed = (page: ConfigurationPage): Promise<string> => readFile(page.path, 'utf8');

/** The cells of the first table row of `name` in `text`, without the column padding. */
const row = (text: string, name: string): string[] | undefined =>
  text
    .split('\n')
    .find((line) => line.startsWith(`| \`${name}\` `))
    ?.slice(1, -1)
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());

describe('the configuration pages', () => {
  it.each(CONFIGURATION_PAGES.map((page) => [page.name, page] as const))(
    '%s is what the schemas generate (run `npm run config:doc` when not)',
    async (_name, page) => {
      const text = await committed(page);
      expect(await renderConfigurationPage(page, text)).toBe(text);
    },
  );

  // The chart's check and the operators read these rows: each variable of each schema has one.
  const SCHEMAS_OF: [string, (keyof ConfigSchemas)[]][] = [
    ['docs/configuration.md', Object.keys(CONFIG_SCHEMAS) as (keyof ConfigSchemas)[]],
    ['docs/media-node.md', ['mediaNode']],
    ['docs/simulator.md', ['simulator']],
  ];
  it.each(SCHEMAS_OF)('%s has a row for every variable of its schemas', async (name, schemas) => {
    const text = await committed(pageNamed(name));
    const missing = schemas.flatMap((schema) =>
      Object.keys(CONFIG_SCHEMAS[schema]).filter((variable) => !row(text, variable)),
    );
    expect(missing).toEqual([]);
  });

  it('shows the default, the accepted values and the description from the schema', async () => {
    const text = await committed(CONFIGURATION);
    expect(row(text, 'REDIS_URL')).toEqual([
      '`REDIS_URL`',
      'unset',
      'string, matching `^rediss?://`',
      'Redis connection URL, `redis://` or `rediss://`, with the password if any. Redis is the ' +
        'system of record: run it with AOF. Required unless `REDIS_SENTINELS` is set (not both).',
    ]);
    expect(row(text, 'NODE_NAME')?.[1]).toBe('— (required)');
    expect(row(text, 'PORT')).toEqual(['`PORT`', '`8080`', 'integer 0–65535', 'HTTP port.']);
    expect(row(text, 'ADMIN_API_KEY')?.slice(1, 3)).toEqual([
      'unset',
      'string, at least 16 characters',
    ]);
    expect(row(text, 'LOG_LEVEL')?.[2]).toBe(
      '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`',
    );
    expect(row(text, 'RECORDING_RETENTION_HOURS')?.slice(1, 3)).toEqual(['`24`', 'number > 0']);
    expect(row(text, 'WEBHOOK_RETRY_SCHEDULE')?.[2]).toBe(
      'string, matching `^\\d+(ms\\|s\\|m\\|h)?(,\\d+(ms\\|s\\|m\\|h)?)*$`',
    );
  });

  it("documents the shared variables once, and names them in each process's section", async () => {
    const text = await committed(CONFIGURATION);
    const rows = (name: string) =>
      text.split('\n').filter((line) => line.startsWith(`| \`${name}\` `));
    expect(rows('REDIS_PREFIX')).toHaveLength(1);
    expect(rows('HEARTBEAT_TTL_MS')).toHaveLength(1);
    // The launcher declares a REDIS_URL of its own, with another meaning.
    expect(rows('REDIS_URL')).toHaveLength(2);
    expect(text).toContain('Also reads the shared variable `LOG_LEVEL` (above).');
  });

  it('fails the check on a new variable or a changed default, naming the page and the command', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'voicegw-config-doc-'));
    try {
      const file = join(dir, 'configuration.md');
      const text = await committed(CONFIGURATION);
      await writeFile(file, text);
      const changed: ConfigSchemas = {
        ...CONFIG_SCHEMAS,
        api: {
          ...CONFIG_SCHEMAS.api,
          PORT: Type.Integer({
            minimum: 0,
            maximum: 65_535,
            default: 9090,
            description: 'HTTP port.',
          }),
          NEW_SETTING: Type.String({
            default: 'on',
            description: 'A setting added to the schema.',
          }),
        },
      };
      const generated = await renderConfigurationPage(CONFIGURATION, text, changed);
      expect(row(generated, 'PORT')?.[1]).toBe('`9090`');
      expect(row(generated, 'NEW_SETTING')).toEqual([
        '`NEW_SETTING`',
        '`on`',
        'string',
        'A setting added to the schema.',
      ]);

      expect(await checkGenerated(CONFIGURATION, generated, file)).toEqual({
        upToDate: false,
        message:
          "docs/configuration.md is out of date with the processes' environment schemas:\n" +
          'the rows of `PORT` and `NEW_SETTING` differ\n' +
          'Run `npm run config:doc` and commit docs/configuration.md.',
      });
      // What `npm run config:doc` writes, `npm run config:check` accepts.
      await writeFile(file, generated);
      expect((await checkGenerated(CONFIGURATION, generated, file)).upToDate).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a variable without a description, and a page without its markers', async () => {
    const text = await committed(CONFIGURATION);
    const undescribed = {
      ...CONFIG_SCHEMAS,
      launcher: { ...CONFIG_SCHEMAS.launcher, UNDESCRIBED: Type.String() },
    };
    await expect(renderConfigurationPage(CONFIGURATION, text, undescribed)).rejects.toThrow(
      'UNDESCRIBED has no description',
    );
    const unmarked = text.replace('<!-- generated by npm run config:doc (launcher)', '<!-- ');
    await expect(renderConfigurationPage(CONFIGURATION, unmarked)).rejects.toThrow(
      'docs/configuration.md has no place for its tables; add the markers:\n' +
        '  <!-- generated by npm run config:doc (launcher): do not edit below -->',
    );
  });

  it('`npm run config:check` exits 0 on the committed pages', async () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'tools/src/generate/configuration-doc.ts', '--check'],
      { cwd: root },
    );
    for (const page of CONFIGURATION_PAGES) expect(stdout).toContain(`${page.name} is up to date`);
  });
});
