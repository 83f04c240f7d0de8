// The FreeSWITCH setups we ship, in the shape checkFreeswitchPod reads: the chart's media node
// pod (from a rendering) and the laptop compose file (with a charts/compose/.env as an operator
// would write it).
import { readdir, readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { COMPOSE, interpolate } from './compose.js';
import type { Container, FreeswitchPod } from './freeswitch-config.js';
import type { KubeObject } from './kube-schemas.js';

interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: { readonly secretKeyRef?: { readonly name: string; readonly key: string } };
}
interface PodContainer {
  readonly name: string;
  readonly env?: readonly EnvVar[];
  readonly volumeMounts?: readonly { readonly name: string; readonly mountPath: string }[];
}
interface Workload {
  readonly spec: { readonly template: { readonly spec: { containers: readonly PodContainer[] } } };
}

const component = (o: KubeObject): string | undefined =>
  (o.metadata as { labels?: Record<string, string> } | undefined)?.labels?.[
    'app.kubernetes.io/component'
  ];
const named = (o: KubeObject): string | undefined => (o.metadata as { name?: string }).name;

/** The media node pod of a rendering with a real FreeSWITCH; undefined for the simulator. */
export function chartFreeswitchPod(objects: readonly KubeObject[]): FreeswitchPod | undefined {
  const configMap = objects.find((o) => o.kind === 'ConfigMap' && component(o) === 'freeswitch');
  const pod = (kind: string, of: string): readonly PodContainer[] =>
    (objects.find((o) => o.kind === kind && component(o) === of) as Workload | undefined)?.spec
      .template.spec.containers ?? [];
  const secrets = new Map<string, Record<string, string>>();
  for (const o of objects) {
    if (o.kind === 'Secret') secrets.set(named(o) ?? '', (o.data ?? {}) as Record<string, string>);
  }
  const container = (containers: readonly PodContainer[], name: string): Container => {
    const found = containers.find((c) => c.name === name);
    const env = new Map<string, string>();
    for (const v of found?.env ?? []) {
      const ref = v.valueFrom?.secretKeyRef;
      const value = ref ? secrets.get(ref.name)?.[ref.key] : v.value;
      if (value === undefined) continue;
      env.set(v.name, ref ? Buffer.from(value, 'base64').toString('utf8') : value);
    }
    const mounts = new Map((found?.volumeMounts ?? []).map((m) => [m.name, m.mountPath]));
    return { env, mounts };
  };
  if (!configMap) return undefined;
  const mediaNode = pod('StatefulSet', 'media-node');
  return {
    files: new Map(Object.entries((configMap.data ?? {}) as Record<string, string>)),
    freeswitch: container(mediaNode, 'freeswitch'),
    mediaNode: container(mediaNode, 'media-node'),
    api: container(pod('Deployment', 'api'), 'api'),
    recordingsVolume: 'recordings',
  };
}

interface ComposeService {
  readonly environment?: Record<string, unknown>;
  readonly volumes?: readonly string[];
}

/** The compose file's FreeSWITCH, media node and api, its variables set to `env`. */
export async function composeFreeswitchPod(
  env: Readonly<Record<string, string>>,
): Promise<FreeswitchPod> {
  const compose = parse(await readFile(`${COMPOSE}docker-compose.yml`, 'utf8')) as {
    services: Record<string, ComposeService>;
  };
  const container = (name: string): Container => {
    const service = compose.services[name] ?? {};
    const mounts = new Map<string, string>();
    for (const volume of service.volumes ?? []) {
      const [source, target] = volume.split(':');
      if (source !== undefined && target !== undefined) mounts.set(source, target);
    }
    const variables = Object.entries(service.environment ?? {}).map(
      ([key, value]) => [key, interpolate(String(value), env)] as const,
    );
    return { env: new Map(variables), mounts };
  };
  const files = new Map<string, string>();
  for (const entry of await readdir(`${COMPOSE}freeswitch/`, { withFileTypes: true })) {
    if (entry.isFile())
      files.set(entry.name, await readFile(`${COMPOSE}freeswitch/${entry.name}`, 'utf8'));
  }
  return {
    files,
    freeswitch: container('freeswitch'),
    mediaNode: container('media-node'),
    api: container('api'),
    recordingsVolume: 'recordings',
  };
}
