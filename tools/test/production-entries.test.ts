import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importGraph } from '@voicegw/tools';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TOOLS = `${ROOT}tools/`;

/** The processes the gateway runs in production, and the simulator's own entry. */
const ENTRIES = [
  'api/src/server.ts',
  'api/src/dispatcher.ts',
  'media-node/src/main.ts',
  'media-node/simulator/src/main.ts',
];

/** Every source file of the repository that `entry` loads (see importGraph). */
function loaded(entry: string): Set<string> {
  return new Set(importGraph([`${ROOT}${entry}`], ROOT).keys());
}

describe('production entries load no development tooling', () => {
  it.each(ENTRIES)('%s loads nothing of tools/', (entry) => {
    const graph = loaded(entry);
    // The walk really follows workspace packages: every entry reaches @voicegw/shared's index.
    expect(graph).toContain(`${ROOT}shared/src/index.ts`);
    expect([...graph].filter((file) => file.startsWith(TOOLS))).toEqual([]);
  });

  it('the walk finds tools/ where it is loaded (the launcher)', () => {
    const graph = loaded('tools/src/launcher/start.ts');
    expect(graph).toContain(`${TOOLS}src/provision.ts`);
  });
});
