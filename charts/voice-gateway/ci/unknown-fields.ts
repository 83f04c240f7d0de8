// The API schemas allow unknown fields (the API server drops them, helm does not complain), so a
// misspelt `resource:` or `readinesProbe:` would pass unnoticed. The typed models know every
// field: this walks each rendered object along its TypeScript interface (I<Kind> of
// kubernetes-models) with the compiler's type checker and reports keys the type does not have.
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { API_GROUPS, type KubeObject } from './kube-schemas.js';

const ENTRY = fileURLToPath(new URL('./__rendered_kinds__.ts', import.meta.url));

export class UnknownFields {
  private readonly checker: ts.TypeChecker;
  private readonly types = new Map<string, ts.Type>();

  /** Compiles the interfaces of these apiVersion/kind pairs once. */
  constructor(kinds: readonly (readonly [apiVersion: string, kind: string])[]) {
    const groups = [...new Set(kinds.map(([apiVersion]) => apiVersion))];
    const lines = groups.map(
      (apiVersion, i) => `import type * as G${i} from '${API_GROUPS[apiVersion]?.module ?? ''}';`,
    );
    kinds.forEach(([apiVersion, kind], i) =>
      lines.push(`export type T${i} = G${groups.indexOf(apiVersion)}.I${kind};`),
    );
    const source = lines.join('\n');
    const options: ts.CompilerOptions = {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      types: [],
      noEmit: true,
      skipLibCheck: true,
      strict: true,
    };
    const host = ts.createCompilerHost(options);
    const getSourceFile = host.getSourceFile.bind(host);
    host.getSourceFile = (name, version, ...rest) =>
      name === ENTRY
        ? ts.createSourceFile(name, source, version)
        : getSourceFile(name, version, ...rest);
    const fileExists = host.fileExists.bind(host);
    host.fileExists = (name) => name === ENTRY || fileExists(name);
    const program = ts.createProgram([ENTRY], options, host);
    const problems = ts.getPreEmitDiagnostics(program, program.getSourceFile(ENTRY));
    if (problems.length > 0) {
      const text = ts.flattenDiagnosticMessageText(problems[0]?.messageText ?? '', '\n');
      throw new Error(`cannot load the Kubernetes model types: ${text}`);
    }
    this.checker = program.getTypeChecker();
    const entry = program.getSourceFile(ENTRY);
    entry?.statements.forEach((statement) => {
      if (!ts.isTypeAliasDeclaration(statement)) return;
      const index = Number(statement.name.text.slice(1));
      const pair = kinds[index];
      if (pair) this.types.set(pair.join(' '), this.checker.getTypeAtLocation(statement.name));
    });
  }

  /** Paths of fields the object's type does not declare, e.g. `spec.template.spec.prots`. */
  check(object: KubeObject): string[] {
    const type = this.types.get(`${String(object.apiVersion)} ${String(object.kind)}`);
    if (!type) return [`no type for ${String(object.apiVersion)} ${String(object.kind)}`];
    const unknown: string[] = [];
    this.walk(object, type, '', unknown);
    return unknown;
  }

  private walk(value: unknown, declared: ts.Type, path: string, unknown: string[]): void {
    if (value === null || typeof value !== 'object') return;
    const type = this.objectMember(this.checker.getNonNullableType(declared));
    if (!type) return;
    if (Array.isArray(value)) {
      const element = this.checker.getIndexTypeOfType(type, ts.IndexKind.Number);
      if (element) value.forEach((item, i) => this.walk(item, element, `${path}[${i}]`, unknown));
      return;
    }
    const map = this.checker.getIndexTypeOfType(type, ts.IndexKind.String);
    for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
      const at = path === '' ? key : `${path}.${key}`;
      const property = this.checker.getPropertyOfType(type, key);
      if (property) {
        this.walk(field, this.checker.getTypeOfSymbol(property), at, unknown);
      } else if (map) {
        this.walk(field, map, at, unknown);
      } else {
        unknown.push(at);
      }
    }
  }

  /** The one object type of a union such as `IFoo | undefined`; undefined when ambiguous. */
  private objectMember(type: ts.Type): ts.Type | undefined {
    if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return undefined;
    if (!type.isUnion()) return type.flags & ts.TypeFlags.Object ? type : undefined;
    const objects = type.types.filter((member) => member.flags & ts.TypeFlags.Object);
    return objects.length === 1 ? objects[0] : undefined;
  }
}
