// `npm run chart:check` (CI: .ci/run). For the chart charts/voice-gateway:
//   1. values.schema.json's env sections match the processes' environment schemas
//      (`--write` regenerates them);
//   2. for each rendering in cases.ts: `helm lint --strict` and `helm template`, then every
//      rendered object is validated against the Kubernetes API schemas (kubernetes-models and
//      the prometheus-operator models), checked for unknown fields, each process's environment
//      is checked against its documentation and its own loader, and the chart's invariants hold;
//   3. each bad value in cases.ts is refused by `helm lint` and `helm template` with its message;
//   4. charts/compose: its FreeSWITCH files are the chart's rendering (`--write` regenerates
//      them) and its services' environments obey the same contract;
//   5. the FreeSWITCH configuration of each rendering and of charts/compose (with each .env of
//      cases.ts) says what FreeSWITCH needs and what the values asked for (freeswitch-config.ts).
// Exits 1 with every problem listed.
import { parseAllDocuments } from 'yaml';
import { COMPOSE_CASES, REJECTS, RENDERS, type RenderCase } from './cases.js';
import { checkComposeEnvironment, composeMediaStreams, syncComposeFreeswitch } from './compose.js';
import { checkEnvironment } from './env-check.js';
import { checkFreeswitchPod } from './freeswitch-config.js';
import { chartFreeswitchPod, composeFreeswitchPod } from './freeswitch-pods.js';
import { CHART, lint, template } from './helm.js';
import { checkInvariants } from './invariants.js';
import { describeObject, validateObject, type KubeObject } from './kube-schemas.js';
import { exposedMetrics } from './metric-names.js';
import { syncValuesSchema } from './values-schema.js';
import { UnknownFields } from './unknown-fields.js';

const problems: string[] = [];
const report = (where: string, found: readonly string[]): void => {
  for (const problem of found) problems.push(`${where}: ${problem}`);
};

function parse(rendered: string, where: string): KubeObject[] {
  const objects: KubeObject[] = [];
  for (const document of parseAllDocuments(rendered)) {
    if (document.errors.length > 0) {
      report(
        where,
        document.errors.map((e) => `invalid YAML: ${e.message}`),
      );
      continue;
    }
    const object = document.toJS() as KubeObject | null;
    if (object !== null) objects.push(object);
  }
  return objects;
}

async function render(renderCase: RenderCase): Promise<KubeObject[]> {
  const linted = await lint(renderCase.args);
  if (!linted.ok) report(`helm lint (${renderCase.name})`, [linted.stdout + linted.stderr]);
  const rendered = await template(renderCase.args);
  if (!rendered.ok) {
    report(`helm template (${renderCase.name})`, [rendered.stderr]);
    return [];
  }
  return parse(rendered.stdout, renderCase.name);
}

const write = process.argv.includes('--write');
report('values.schema.json', await syncValuesSchema(`${CHART}values.schema.json`, write));
report('charts/compose', await syncComposeFreeswitch(write));
report('charts/compose', await checkComposeEnvironment());

const renders = await Promise.all(RENDERS.map(async (c) => [c, await render(c)] as const));
const kinds = new Map<string, readonly [string, string]>();
for (const [, objects] of renders) {
  for (const o of objects)
    kinds.set(`${String(o.apiVersion)} ${String(o.kind)}`, [String(o.apiVersion), String(o.kind)]);
}
const fields = new UnknownFields([...kinds.values()].filter(([v]) => v !== 'undefined'));
const exposed = await exposedMetrics();

let validated = 0;
for (const [renderCase, objects] of renders) {
  for (const object of objects) {
    const where = `${renderCase.name}: ${describeObject(object)}`;
    report(where, validateObject(object));
    report(
      where,
      fields.check(object).map((path) => `unknown field ${path}`),
    );
    validated++;
  }
  report(renderCase.name, checkEnvironment(objects));
  report(renderCase.name, checkInvariants(objects, exposed));
  const pod = chartFreeswitchPod(objects);
  if (pod) report(`${renderCase.name}: FreeSWITCH`, checkFreeswitchPod(pod, renderCase.freeswitch));
  else if (renderCase.freeswitch) report(renderCase.name, ['no FreeSWITCH configuration rendered']);
}

const composeStreams = await composeMediaStreams();
for (const composeCase of COMPOSE_CASES) {
  const where = `charts/compose (${composeCase.name})`;
  report(
    where,
    checkFreeswitchPod(await composeFreeswitchPod(composeCase.env), {
      ...composeCase.freeswitch,
      mediaStreams: composeStreams,
    }),
  );
}
await composeFreeswitchPod({}).then(
  () => report('charts/compose', ['docker compose starts without TRUNK_PROXY']),
  () => undefined,
);

for (const reject of REJECTS) {
  for (const [command, run] of [
    ['helm lint', lint],
    ['helm template', template],
  ] as const) {
    const result = await run(reject.args);
    const output = result.stdout + result.stderr;
    const missing = reject.expect.filter((words) => !output.includes(words));
    if (result.ok) {
      problems.push(`${command} accepted ${reject.name} (${reject.args.join(' ')})`);
    } else if (missing.length > 0) {
      problems.push(
        `${command} refused ${reject.name} without saying "${missing.join('", "')}":\n${output}`,
      );
    }
  }
}

if (problems.length > 0) {
  console.error(`chart check failed (${problems.length}):\n- ${problems.join('\n- ')}`);
  process.exit(1);
}
console.log(
  `chart check passed: ${RENDERS.length} renderings linted and templated, ${validated} objects ` +
    `valid against the Kubernetes schemas with no unknown fields, environments documented and ` +
    `accepted, ${REJECTS.length} bad values refused by helm lint and helm template` +
    `, charts/compose in step with the chart, the FreeSWITCH configuration of ` +
    `${RENDERS.filter((c) => c.freeswitch).length} renderings and ${COMPOSE_CASES.length} compose ` +
    `setups as FreeSWITCH needs it and as asked` +
    (write ? ' (--write: generated files brought up to date)' : ''),
);
process.exit(0);
