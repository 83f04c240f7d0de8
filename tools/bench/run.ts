import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { machineInfo } from './lib/machine.js';
import { parseOptions, USAGE, type BenchOptions } from './lib/options.js';
import { renderChart } from './lib/chart.js';
import { renderMarkdown, renderText, type ScenarioReport } from './lib/report.js';
import { SCENARIOS } from './scenarios/index.js';

/**
 * `npm run bench`: runs every scenario (or those named), prints one side-by-side table per
 * scenario with its targets marked PASS or MISS, and writes the same as markdown to
 * tools/bench/report/latest.md, with a chart of the figures beside their baselines in
 * tools/bench/report/latest.svg. A missed target is reported, not turned into a failing exit code;
 * only a benchmark that cannot run exits non-zero.
 */
const REPORT = fileURLToPath(new URL('./report/latest.md', import.meta.url));
const CHART = fileURLToPath(new URL('./report/latest.svg', import.meta.url));

function options(): BenchOptions {
  try {
    const parsed = parseOptions(process.argv.slice(2), process.env);
    if (parsed === 'help') {
      console.log(USAGE);
      process.exit(0);
    }
    return parsed;
  } catch (err) {
    console.error(`${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
    process.exit(2);
  }
}

const opts = options();
const unknown = opts.only.filter((name) => !SCENARIOS.some((s) => s.name === name));
if (unknown.length > 0) {
  console.error(
    `unknown scenario ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`,
  );
  process.exit(2);
}
if (opts.cpuProfileDir !== undefined) await mkdir(opts.cpuProfileDir, { recursive: true });

const startedAt = new Date();
const machine = machineInfo();
const selected = SCENARIOS.filter((s) => opts.only.length === 0 || opts.only.includes(s.name));
const scenarios: ScenarioReport[] = [];
for (const scenario of selected) {
  const log = (line: string): void => console.error(`[${scenario.name}] ${line}`);
  const result = await scenario.run(opts, log);
  scenarios.push({ name: scenario.name, title: scenario.title, result });
}

const report = { startedAt, machine, options: opts, scenarios };
process.stdout.write(renderText(report));
const chart = renderChart(report);
if (chart !== undefined) await writeFile(CHART, chart);
await writeFile(REPORT, renderMarkdown(report, chart === undefined ? undefined : 'latest.svg'));
console.error(`\nreport written to ${REPORT}${chart === undefined ? '' : ` and ${CHART}`}`);
