import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';

/**
 * `npx tsx tools/bench/profile-summary.ts <file.cpuprofile> [top]`, run from the repository root
 * (areas are named by their path from the working directory): where the CPU time of a server
 * child went (a profile written by `npm run bench -- --cpu-prof <dir>`), by area and by function,
 * as shares of the busy time (idle excluded).
 */
interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
}
interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const ROOT = process.cwd();

/** The package or workspace a frame belongs to: `fastify`, `api/src`, `node:internal`, ... */
function area(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return url.split('/')[0] ?? url;
  const path = url.startsWith('file://') ? new URL(url).pathname : url;
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (modules?.[1]) return modules[1];
  const local = relative(ROOT, path).split('/');
  return local.slice(0, 2).join('/');
}

function location(frame: CallFrame): string {
  const path = frame.url.startsWith('file://') ? new URL(frame.url).pathname : frame.url;
  const short = path.includes('node_modules/')
    ? path.slice(path.lastIndexOf('node_modules/') + 13)
    : relative(ROOT, path) || path;
  return `${frame.functionName || '(anonymous)'} ${short}:${frame.lineNumber + 1}`;
}

function top(totals: Map<string, number>, busy: number, n: number): string[] {
  return [...totals]
    .sort(([, a], [, b]) => b - a)
    .slice(0, n)
    .map(([name, us]) => `${((100 * us) / busy).toFixed(1).padStart(5)} %  ${name}`);
}

const [file, limit = '25'] = process.argv.slice(2);
if (file === undefined) {
  console.error('usage: npx tsx tools/bench/profile-summary.ts <file.cpuprofile> [top]');
  process.exit(2);
}
const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
const byArea = new Map<string, number>();
const byFunction = new Map<string, number>();
let busy = 0;
profile.samples.forEach((id, i) => {
  const frame = frames.get(id);
  const us = profile.timeDeltas[i] ?? 0;
  if (!frame || frame.functionName === '(idle)') return;
  busy += us;
  byArea.set(area(frame), (byArea.get(area(frame)) ?? 0) + us);
  byFunction.set(location(frame), (byFunction.get(location(frame)) ?? 0) + us);
});
console.log(`busy CPU time ${(busy / 1e6).toFixed(2)} s; self time by area:`);
console.log(top(byArea, busy, 15).join('\n'));
console.log(`\nself time by function (top ${limit}):`);
console.log(top(byFunction, busy, Number(limit)).join('\n'));
