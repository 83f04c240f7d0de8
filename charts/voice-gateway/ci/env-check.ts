// The environment the chart gives each process: every variable is documented (its process schema
// declares it and its document lists it), none is set twice, and the process's own configuration
// loader accepts the whole set, so a pod started from this chart passes its start-up checks.
import { readFileSync } from 'node:fs';
import { PROCESSES, SIMULATOR } from './contract.js';
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

const documented = (doc: string, name: string): boolean =>
  new RegExp(`^\\|\\s*\`${name}\`\\s*\\|`, 'm').test(doc);

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
  const read = (doc: string): string => readFileSync(`${ROOT}${doc}`, 'utf8');

  for (const process of PROCESSES) {
    const found = containerOf(objects, process.kind, process.component, process.container);
    if (!found) continue; // not rendered with these values (the dispatcher can be disabled)
    const { workload, container } = found;
    const where = `${workload.kind} ${workload.metadata.name}, container ${container.name}`;
    const doc = read(process.doc);
    const env: Record<string, string> = {};
    for (const variable of container.env ?? []) {
      if (!(variable.name in process.variables) || !documented(doc, variable.name)) {
        problems.push(`${where}: ${variable.name} is not a variable of ${process.doc}`);
      }
      if (variable.name in env) problems.push(`${where}: ${variable.name} is set twice`);
      env[variable.name] = resolve(variable, `${workload.metadata.name}-0`, objects);
    }
    try {
      process.load(env);
    } catch (err) {
      problems.push(`${where}: the process would refuse this environment: ${String(err)}`);
    }
  }

  const simulator = containerOf(objects, 'StatefulSet', SIMULATOR.component, SIMULATOR.container);
  if (simulator) {
    const doc = read(SIMULATOR.doc);
    for (const variable of simulator.container.env ?? []) {
      if (!documented(doc, variable.name)) {
        problems.push(`simulator: ${variable.name} is not a variable of ${SIMULATOR.doc}`);
      }
    }
  }
  return problems;
}
