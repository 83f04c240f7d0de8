// The environment the chart (and the laptop compose file) gives each process: every variable is
// documented (its process schema declares it and its document lists it), none is set twice,
// none the chart withholds is set, and the process's own configuration loader accepts the whole
// set, so a pod started from this chart passes its start-up checks.
import { readFileSync } from 'node:fs';
import { PROCESSES, SIMULATOR, type ProcessContract } from './contract.js';
import { ROOT } from './helm.js';
import type { KubeObject } from './kube-schemas.js';

interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: {
    readonly secretKeyRef?: { readonly name: string; readonly key: string };
    readonly fieldRef?: { readonly fieldPath: string };
  };
}
interface Container {
  readonly name: string;
  readonly env?: readonly EnvVar[];
}
interface Workload extends KubeObject {
  readonly metadata: { readonly name: string; readonly labels?: Record<string, string> };
  readonly spec: { readonly template: { readonly spec: { readonly containers: Container[] } } };
}

/** Stand-ins for values only a cluster knows (an existing Secret, the pod's address). */
const PLACEHOLDERS: Readonly<Record<string, string>> = {
  'redis-url': 'redis://redis.example:6379',
  'admin-api-key': 'placeholder-admin-key-0123456789',
  'esl-password': 'placeholder-password',
};

const docs = new Map<string, string>();
const read = (doc: string): string => {
  const text = docs.get(doc) ?? readFileSync(`${ROOT}${doc}`, 'utf8');
  docs.set(doc, text);
  return text;
};

export const documented = (doc: string, name: string): boolean =>
  new RegExp(`^\\|\\s*\`${name}\`\\s*\\|`, 'm').test(read(doc));

/** Problems with one process's environment, given as name/value pairs in the order set. */
export function checkProcessEnv(
  process: ProcessContract,
  variables: readonly (readonly [name: string, value: string])[],
  where: string,
): string[] {
  const problems: string[] = [];
  const env: Record<string, string> = {};
  for (const [name, value] of variables) {
    if (!(name in process.variables) || !documented(process.doc, name)) {
      problems.push(`${where}: ${name} is not a variable of ${process.doc}`);
    }
    if (process.withheld.includes(name)) {
      problems.push(`${where}: ${name} must stay unset here`);
    }
    if (name in env) problems.push(`${where}: ${name} is set twice`);
    env[name] = value;
  }
  try {
    process.load(env);
  } catch (err) {
    problems.push(`${where}: the process would refuse this environment: ${String(err)}`);
  }
  return problems;
}

function resolve(variable: EnvVar, pod: string, objects: readonly KubeObject[]): string {
  if (variable.value !== undefined) return variable.value;
  const secret = variable.valueFrom?.secretKeyRef;
  if (secret) {
    const rendered = objects.find((o) => o.kind === 'Secret' && o.metadata?.name === secret.name);
    const data = rendered?.data as Record<string, string> | undefined;
    const stringData = rendered?.stringData as Record<string, string> | undefined;
    const encoded = data?.[secret.key];
    if (encoded !== undefined) return Buffer.from(encoded, 'base64').toString('utf8');
    return stringData?.[secret.key] ?? PLACEHOLDERS[secret.key] ?? 'placeholder';
  }
  if (variable.valueFrom?.fieldRef?.fieldPath === 'metadata.name') return pod;
  return '10.0.0.1';
}

function containerOf(
  objects: readonly KubeObject[],
  kind: string,
  component: string,
  name: string,
) {
  const workload = objects.find(
    (o): o is Workload =>
      o.kind === kind &&
      (o as Workload).metadata.labels?.['app.kubernetes.io/component'] === component,
  );
  const container = workload?.spec.template.spec.containers.find((c) => c.name === name);
  return workload && container ? { workload, container } : undefined;
}

/** Problems with the environment of every process in one rendering (empty when all is well). */
export function checkEnvironment(objects: readonly KubeObject[]): string[] {
  const problems: string[] = [];
  for (const process of PROCESSES) {
    const found = containerOf(objects, process.kind, process.component, process.container);
    if (!found) continue; // not rendered with these values (the dispatcher can be disabled)
    const { workload, container } = found;
    const pod = `${workload.metadata.name}-0`;
    // Kubernetes expands $(NAME) from variables defined earlier in the same container.
    const earlier = new Map<string, string>();
    const variables = (container.env ?? []).map((v) => {
      const value = resolve(v, pod, objects).replace(
        /\$\(([A-Z0-9_]+)\)/g,
        (ref, name: string) => earlier.get(name) ?? ref,
      );
      earlier.set(v.name, value);
      return [v.name, value] as const;
    });
    const where = `${workload.kind} ${workload.metadata.name}, container ${container.name}`;
    problems.push(...checkProcessEnv(process, variables, where));
  }

  const simulator = containerOf(objects, 'StatefulSet', SIMULATOR.component, SIMULATOR.container);
  for (const variable of simulator?.container.env ?? []) {
    if (!documented(SIMULATOR.doc, variable.name)) {
      problems.push(`simulator: ${variable.name} is not a variable of ${SIMULATOR.doc}`);
    }
  }
  return problems;
}
