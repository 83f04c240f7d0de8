import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { importCycles, importGraph, sourceFiles } from '@voicegw/tools';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WORKSPACES = ['shared', 'api', 'media-node', 'media-node/simulator', 'sdk', 'tools'];

/** The import cycles among the sources of `dir`, as paths relative to it. */
function cyclesUnder(dir: string): string[][] {
  const cycles = importCycles(importGraph(sourceFiles(dir), dir));
  return cycles.map((cycle) => cycle.map((file) => file.slice(dir.length)));
}

describe('no workspace imports its own modules in a circle', () => {
  // Type-only imports count: a context that imports the types of the modules that import it ties
  // them together as surely as values do. Declare the narrow interface it needs instead.
  it.each(WORKSPACES)('%s/src has no import cycle', (workspace) => {
    expect(cyclesUnder(`${ROOT}${workspace}/src/`)).toEqual([]);
  });
});

describe('importCycles', () => {
  const dir = `${realpathSync(mkdtempSync(join(tmpdir(), 'import-cycles-')))}/`;
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function write(files: Record<string, string>): void {
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(join(dir, name, '..'), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
  }

  it('finds circles of type-only, dynamic and self imports, each once, and nothing else', () => {
    write({
      'a/context.ts': "import type { Session } from '../b/session.js';\nexport type C = Session;\n",
      'b/session.ts': "import type { C } from '../a/context.js';\nexport type Session = C[];\n",
      'b/registry.ts': "export { type Session } from './session.js';\nimport './self.js';\n",
      'b/self.ts': "export type { S } from './self.js';\n",
      'c/pair-1.ts': "await import('./pair-2.js');\n",
      'c/pair-2.ts': "import './pair-1.js';\n",
      'leaf.ts': "import './b/registry.js';\n",
    });
    expect(cyclesUnder(dir)).toEqual([
      ['a/context.ts', 'b/session.ts'],
      ['c/pair-1.ts', 'c/pair-2.ts'],
      ['b/self.ts'],
    ]);
  });

  it('finds none where the imports only go one way', () => {
    const graph = new Map([
      ['/x/a.ts', ['/x/b.ts', '/x/c.ts']],
      ['/x/b.ts', ['/x/c.ts']],
      ['/x/c.ts', []],
    ]);
    expect(importCycles(graph)).toEqual([]);
  });
});
