import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// @voicegw/sdk is published on its own: what it builds must import nothing but itself and its
// one dependency, and `npm pack` must hold only the build, the README and package.json.

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
let out: string;

beforeAll(async () => {
  // A build of its own (not sdk/dist, which the quickstart test builds at the same time), where
  // node resolves standardwebhooks as an installed package would.
  await mkdir(join(root, 'node_modules/.cache'), { recursive: true });
  out = await mkdtemp(join(root, 'node_modules/.cache/voicegw-sdk-build-'));
  await run(
    process.execPath,
    [
      join(root, 'node_modules/typescript/bin/tsc'),
      '-p',
      'sdk/tsconfig.build.json',
      '--outDir',
      out,
    ],
    { cwd: root },
  );
}, 60_000);
afterAll(() => rm(out, { recursive: true, force: true }));

describe('the published package', () => {
  it('builds ESM and declarations that import only themselves and standardwebhooks', async () => {
    const files = await readdir(out);
    expect(files).toEqual(expect.arrayContaining(['index.js', 'index.d.ts', 'contract.d.ts']));
    for (const file of files) {
      const text = await readFile(join(out, file), 'utf8');
      const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => m[1]);
      for (const specifier of specifiers)
        expect(specifier, `${file} imports ${specifier}`).toMatch(
          /^(\.\/[\w-]+\.js|standardwebhooks)$/,
        );
    }
    // Loaded by node itself, as an application would.
    const { stdout } = await run(process.execPath, [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(join(out, 'index.js'))}); console.log(JSON.stringify(Object.keys(m).sort()))`,
    ]);
    expect(JSON.parse(stdout)).toEqual([
      'Apps',
      'Conferences',
      'DEFAULT_RETRY',
      'DeadLetters',
      'NumberLists',
      'Sessions',
      'StreamFrameError',
      'VoiceGateway',
      'VoiceGatewayAdmin',
      'VoiceGatewayError',
      'WebhookLanes',
      'WebhookVerificationError',
      'clearFrame',
      'createWebhookHandler',
      'markFrame',
      'mediaFrame',
      'parseStreamFrame',
      'verifyStreamUpgrade',
      'verifyWebhook',
    ]);
  });

  it('packs only dist, the README and package.json', async () => {
    const { stdout } = await run(
      'npm',
      ['pack', '--dry-run', '--json', '--ignore-scripts', '--workspace', 'sdk'],
      { cwd: root },
    );
    const [pack] = JSON.parse(stdout) as [{ name: string; files: { path: string }[] }];
    expect(pack.name).toBe('@voicegw/sdk');
    const paths = pack.files.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['package.json', 'README.md']));
    for (const path of paths) expect(path).toMatch(/^(package\.json|README\.md|dist\/.+)$/);
    const manifest = JSON.parse(await readFile(join(root, 'sdk/package.json'), 'utf8'));
    expect(manifest.dependencies).toEqual({ standardwebhooks: expect.any(String) });
    expect(manifest.exports['.']).toEqual({
      types: './dist/index.d.ts',
      default: './dist/index.js',
    });
  }, 30_000);
});
