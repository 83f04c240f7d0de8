// Every rendered object is checked against the Kubernetes API schemas: kubernetes-models (and the
// prometheus-operator models for ServiceMonitor / PrometheusRule) validate types, enums, required
// fields and formats; unknown-fields.ts adds what those schemas allow but the API server drops
// silently, a misspelt field.
import * as monitoringV1 from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import * as appsV1 from 'kubernetes-models/apps/v1';
import * as autoscalingV2 from 'kubernetes-models/autoscaling/v2';
import * as policyV1 from 'kubernetes-models/policy/v1';
import * as coreV1 from 'kubernetes-models/v1';

/** A model class: constructed from data, `validate()` throws with every violation. */
type ModelClass = new (data: never) => { validate(): void };

interface ApiGroup {
  /** The module the TypeScript interfaces (`I<Kind>`) come from. */
  readonly module: string;
  readonly models: Readonly<Record<string, unknown>>;
}

/** The apiVersions the chart renders; anything else fails with a request to add it here. */
export const API_GROUPS: Readonly<Record<string, ApiGroup>> = {
  v1: { module: 'kubernetes-models/v1', models: coreV1 },
  'apps/v1': { module: 'kubernetes-models/apps/v1', models: appsV1 },
  'autoscaling/v2': { module: 'kubernetes-models/autoscaling/v2', models: autoscalingV2 },
  'policy/v1': { module: 'kubernetes-models/policy/v1', models: policyV1 },
  'monitoring.coreos.com/v1': {
    module: '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1',
    models: monitoringV1,
  },
};

export interface KubeObject {
  readonly apiVersion?: unknown;
  readonly kind?: unknown;
  readonly metadata?: { readonly name?: unknown };
  readonly [field: string]: unknown;
}

export const describeObject = (object: KubeObject): string =>
  `${String(object.kind)} ${String(object.metadata?.name)}`;

/** Schema violations of one object, as readable lines (empty when valid). */
export function validateObject(object: KubeObject): string[] {
  const group = API_GROUPS[String(object.apiVersion)];
  const model = group?.models[String(object.kind)] as ModelClass | undefined;
  if (!group || typeof model !== 'function') {
    return [
      `no schema for ${String(object.apiVersion)} ${String(object.kind)}: add its group to ` +
        'API_GROUPS in charts/voice-gateway/ci/kube-schemas.ts',
    ];
  }
  try {
    new model(object as never).validate();
    return [];
  } catch (err) {
    const errors = (
      err as { errors?: { instancePath: string; message?: string; params?: unknown }[] }
    ).errors;
    if (!errors) return [String(err)];
    return errors.map(
      (e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'} ${JSON.stringify(e.params)}`,
    );
  }
}
