// Promises of the chart that no API schema can see: a media node's grace period outlasts its
// drain, FreeSWITCH's event socket listens on loopback only, and the alerts and the dashboard
// name only metrics that exist.
import type { KubeObject } from './kube-schemas.js';
import { unknownMetrics } from './metric-names.js';

interface EnvVar {
  readonly name: string;
  readonly value?: string;
}
interface PodSpec {
  readonly terminationGracePeriodSeconds?: number;
  readonly containers: readonly { readonly name: string; readonly env?: readonly EnvVar[] }[];
}

const component = (o: KubeObject): string | undefined =>
  (o.metadata as { labels?: Record<string, string> } | undefined)?.labels?.[
    'app.kubernetes.io/component'
  ];

/** Every PromQL expression of the PrometheusRules and the dashboards, with where it is. */
function expressions(objects: readonly KubeObject[]): [where: string, expr: string][] {
  const found: [string, string][] = [];
  for (const o of objects) {
    if (o.kind === 'PrometheusRule') {
      const spec = o.spec as { groups: { rules: { alert?: string; expr: string }[] }[] };
      for (const rule of spec.groups.flatMap((g) => g.rules)) {
        found.push([`alert ${rule.alert ?? '?'}`, rule.expr]);
      }
    }
    if (o.kind === 'ConfigMap' && component(o) === 'dashboard') {
      for (const [file, text] of Object.entries(o.data as Record<string, string>)) {
        const walk = (node: unknown, path: string): void => {
          if (Array.isArray(node)) node.forEach((n, i) => walk(n, `${path}[${i}]`));
          else if (node !== null && typeof node === 'object') {
            for (const [key, value] of Object.entries(node)) {
              if ((key === 'expr' || key === 'query') && typeof value === 'string') {
                found.push([`${file} ${path}`, value]);
              } else walk(value, `${path}.${key}`);
            }
          }
        };
        try {
          walk(JSON.parse(text), '');
        } catch (err) {
          found.push([`${file}`, `<invalid JSON: ${String(err)}>`]);
        }
      }
    }
  }
  return found;
}

export function checkInvariants(
  objects: readonly KubeObject[],
  exposed: ReadonlySet<string>,
): string[] {
  const problems: string[] = [];

  for (const o of objects) {
    if (o.kind !== 'StatefulSet' || component(o) !== 'media-node') continue;
    const pod = (o.spec as { template: { spec: PodSpec } }).template.spec;
    const drain = pod.containers
      .find((c) => c.name === 'media-node')
      ?.env?.find((v) => v.name === 'DRAIN_TIMEOUT_SEC')?.value;
    const grace = pod.terminationGracePeriodSeconds ?? 30;
    if (drain === undefined || !(grace > Number(drain))) {
      problems.push(
        `media node: terminationGracePeriodSeconds ${grace} must exceed DRAIN_TIMEOUT_SEC ${drain}`,
      );
    }
  }

  for (const o of objects) {
    if (o.kind !== 'ConfigMap' || component(o) !== 'freeswitch') continue;
    const esl = (o.data as Record<string, string>)['event_socket.conf.xml'] ?? '';
    if (!esl.includes('<param name="listen-ip" value="127.0.0.1"/>')) {
      problems.push('FreeSWITCH: the event socket must listen on 127.0.0.1 only');
    }
  }

  for (const [where, expr] of expressions(objects)) {
    if (expr.startsWith('<invalid JSON')) problems.push(`${where}: ${expr}`);
    for (const name of unknownMetrics(expr, exposed)) {
      problems.push(`${where}: metric ${name} is exposed by no process`);
    }
  }
  return problems;
}
