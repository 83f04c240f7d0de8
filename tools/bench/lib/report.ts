import { generatorGcNote } from './generator-gc.js';
import type { MachineInfo } from './machine.js';
import type { BenchOptions } from './options.js';
import type { Cell, Check, ScenarioResult } from './scenario.js';

export interface ScenarioReport {
  readonly name: string;
  readonly title: string;
  readonly result: ScenarioResult;
}

export interface BenchReport {
  readonly startedAt: Date;
  readonly machine: MachineInfo;
  readonly options: BenchOptions;
  readonly scenarios: readonly ScenarioReport[];
}

const verdict = (check: Check): string => (check.pass ? 'PASS' : 'MISS');

function environment(report: BenchReport): string[] {
  const { machine, options } = report;
  const gcNote = generatorGcNote();
  return [
    `date: ${report.startedAt.toISOString()}`,
    `node ${machine.node} · ${machine.cpuModel} · ${machine.cores} cores · ${machine.memoryGiB} GiB · ${machine.os}`,
    `load average at start: ${machine.loadAverage.toFixed(2)}` +
      (machine.loadAverage > machine.cores / 2
        ? ' — the machine was busy with other work: the figures understate it'
        : ''),
    `duration ${options.durationSec} s per measurement · warm-up ${options.warmupSec} s · ${options.connections} connections`,
    ...(gcNote === undefined ? [] : [gcNote]),
  ];
}

/** A plain-text table: first column left-aligned, figures right-aligned. */
function textTable(columns: readonly string[], rows: readonly (readonly Cell[])[]): string[] {
  const all = [columns, ...rows].map((row) => row.map(String));
  const widths = columns.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[]): string =>
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const [head = [], ...body] = all;
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)];
}

export function renderText(report: BenchReport): string {
  const out = ['voicegw benchmark', ...environment(report)];
  for (const { name, title, result } of report.scenarios) {
    out.push('', `== ${name}: ${title}`, '', ...textTable(result.columns, result.rows), '');
    for (const check of result.checks) {
      out.push(`${verdict(check)}  ${check.target}  (measured: ${check.actual})`);
    }
    if (result.notes.length > 0) out.push('', ...result.notes.map((n) => `  - ${n}`));
  }
  return out.join('\n') + '\n';
}

const escape = (cell: Cell): string => String(cell).replaceAll('|', '\\|');

function markdownTable(columns: readonly string[], rows: readonly (readonly Cell[])[]): string[] {
  const row = (cells: readonly Cell[]): string => `| ${cells.map(escape).join(' | ')} |`;
  const align = columns.map((_, i) => (i === 0 ? ':---' : '---:'));
  return [row(columns), `|${align.join('|')}|`, ...rows.map(row)];
}

/** The report as markdown; `chartFile` (beside it) is shown under the header when given. */
export function renderMarkdown(report: BenchReport, chartFile?: string): string {
  const out = ['# voicegw benchmark', '', ...environment(report).map((l) => `- ${l}`)];
  if (chartFile !== undefined)
    out.push('', `![each measurement beside its baseline](${chartFile})`);
  for (const { name, title, result } of report.scenarios) {
    out.push('', `## ${name}`, '', title, '', ...markdownTable(result.columns, result.rows), '');
    out.push(
      ...markdownTable(
        ['target', 'measured', 'result'],
        result.checks.map((c) => [c.target, c.actual, `**${verdict(c)}**`]),
      ),
    );
    if (result.notes.length > 0) out.push('', ...result.notes.map((n) => `- ${n}`));
  }
  return out.join('\n') + '\n';
}
