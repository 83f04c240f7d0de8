import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TOOLS = `${ROOT}tools/`;

/** The processes the gateway runs in production, and the simulator's own entry. */
const ENTRIES = [
  'api/src/server.ts',
  'api/src/dispatcher.ts',
  'media-node/src/main.ts',
  'media-node/simulator/src/main.ts',
];

const OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  allowImportingTsExtensions: true,
  resolveJsonModule: true,
};

/**
 * Every source file of the repository that `entry` loads, statically or through a dynamic
 * `import('…')` of a literal, as TypeScript resolves them (package exports through the
 * workspaces' links included). Packages from the registry are not followed.
 */
function importGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const queue = [`${ROOT}${entry}`];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      const { resolvedModule } = ts.resolveModuleName(fileName, file, OPTIONS, ts.sys);
      if (!resolvedModule || resolvedModule.extension === ts.Extension.Dts) continue;
      const resolved = realpathSync(resolvedModule.resolvedFileName);
      if (resolved.startsWith(ROOT) && !resolved.includes('/node_modules/')) queue.push(resolved);
    }
  }
  return seen;
}

describe('production entries load no development tooling', () => {
  it.each(ENTRIES)('%s loads nothing of tools/', (entry) => {
    const graph = importGraph(entry);
    // The walk really follows workspace packages: every entry reaches @voicegw/shared's index.
    expect(graph).toContain(`${ROOT}shared/src/index.ts`);
    expect([...graph].filter((file) => file.startsWith(TOOLS))).toEqual([]);
  });

  it('the walk finds tools/ where it is loaded (the launcher)', () => {
    const graph = importGraph('tools/src/launcher/start.ts');
    expect(graph).toContain(`${TOOLS}src/provision.ts`);
  });
});
