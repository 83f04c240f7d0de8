// The repository's module graph as TypeScript resolves it, for tests that check its shape: what a
// production entry loads, and that no workspace's sources import each other in a circle.
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join, sep } from 'node:path';
import ts from 'typescript';

const OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  allowImportingTsExtensions: true,
  resolveJsonModule: true,
};

const DECLARATION = /\.d\.[cm]?ts$/;

/** Each file reached, with the files it imports directly (those under the directory walked). */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/**
 * The files `roots` load under the directory `within` (absolute paths), each with the files it
 * imports: `import`, `import type`, `export … from` and dynamic `import('…')` of a literal, as
 * TypeScript resolves them (package exports through the workspaces' links included). Type-only
 * imports count: a circle of them still ties the modules together. Packages from the registry
 * (anything in node_modules) and declaration files are not followed.
 */
export function importGraph(roots: readonly string[], within: string): ImportGraph {
  const under = `${realpathSync(within)}${sep}`;
  const graph = new Map<string, string[]>();
  const queue = roots.map((root) => realpathSync(root));
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (graph.has(file)) continue;
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const imports: string[] = [];
    for (const { fileName } of importedFiles) {
      const { resolvedModule } = ts.resolveModuleName(fileName, file, OPTIONS, ts.sys);
      if (!resolvedModule || DECLARATION.test(resolvedModule.resolvedFileName)) continue;
      const resolved = realpathSync(resolvedModule.resolvedFileName);
      if (!resolved.startsWith(under) || resolved.includes('/node_modules/')) continue;
      imports.push(resolved);
      queue.push(resolved);
    }
    graph.set(file, imports);
  }
  return graph;
}

/** The TypeScript sources under `dir` (declaration files excepted), as absolute paths. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.[cm]?tsx?$/.test(name) && !DECLARATION.test(name))
    .map((name) => realpathSync(join(dir, name)))
    .sort();
}

/**
 * The import cycles of `graph`: its strongly connected components of more than one file, and any
 * file that imports itself, each sorted, largest first. Empty when the graph has no circle.
 */
export function importCycles(graph: ImportGraph): string[][] {
  // Tarjan's algorithm, iterative so that a long import chain cannot overflow the stack.
  interface Visit {
    readonly file: string;
    readonly imports: readonly string[];
    readonly index: number;
    low: number;
    next: number;
  }
  const visits = new Map<string, Visit>();
  const stack: Visit[] = [];
  const onStack = new Set<Visit>();
  const cycles: string[][] = [];
  for (const start of graph.keys()) {
    if (visits.has(start)) continue;
    const path: Visit[] = [];
    const enter = (file: string): void => {
      const visit = {
        file,
        imports: graph.get(file) ?? [],
        index: visits.size,
        low: visits.size,
        next: 0,
      };
      visits.set(file, visit);
      stack.push(visit);
      onStack.add(visit);
      path.push(visit);
    };
    enter(start);
    for (let visit = path.at(-1); visit !== undefined; visit = path.at(-1)) {
      const target = visit.imports[visit.next++];
      if (target !== undefined) {
        const seen = visits.get(target);
        if (seen === undefined) enter(target);
        else if (onStack.has(seen)) visit.low = Math.min(visit.low, seen.index);
        continue;
      }
      path.pop();
      const parent = path.at(-1);
      if (parent) parent.low = Math.min(parent.low, visit.low);
      if (visit.low !== visit.index) continue;
      // `visit` is the root of a component: it and everything above it on the stack.
      const component = stack.splice(stack.indexOf(visit));
      for (const member of component) onStack.delete(member);
      if (component.length > 1 || visit.imports.includes(visit.file)) {
        cycles.push(component.map((member) => member.file).sort());
      }
    }
  }
  return cycles.sort((a, b) => b.length - a.length || String(a[0]).localeCompare(String(b[0])));
}
