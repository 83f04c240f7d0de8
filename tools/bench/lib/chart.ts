import type { BenchReport } from './report.js';
import type { ChartBar } from './scenario.js';

/**
 * The report's chart: for every scenario that gives bars, one group per measurement with a bar
 * for the target and one for its baseline, each group on its own scale (measurements have
 * different units). Plain SVG text, no dependencies; GitHub and browsers show it inline.
 */
const WIDTH = 900;
const LABEL_W = 330;
const BAR_MAX = 440;
const BAR_H = 14;
const GROUP_H = 2 * BAR_H + 16;
const COLORS = { value: '#2f6fb3', baseline: '#a0a7b0' };

const esc = (text: string): string =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

const figure = (n: number): string =>
  !Number.isFinite(n)
    ? 'n/a'
    : n >= 100
      ? Math.round(n).toLocaleString('en-US')
      : n.toFixed(n >= 10 ? 1 : 2);

function bar(y: number, value: number, scale: number, color: string, unit: string): string {
  const w = Number.isFinite(value) && value > 0 ? Math.max(1, value * scale) : 0;
  return (
    `<rect x="${LABEL_W}" y="${y}" width="${w.toFixed(1)}" height="${BAR_H}" fill="${color}"/>` +
    `<text x="${(LABEL_W + w + 6).toFixed(1)}" y="${y + BAR_H - 3}">${esc(`${figure(value)} ${unit}`)}</text>`
  );
}

function group(y: number, b: ChartBar): string {
  const top = Math.max(b.value, b.baseline ?? 0);
  const scale = Number.isFinite(top) && top > 0 ? BAR_MAX / top : 0;
  const parts = [
    `<text x="${LABEL_W - 10}" y="${y + BAR_H + 4}" text-anchor="end">${esc(b.label)}</text>`,
    bar(y, b.value, scale, COLORS.value, b.unit),
  ];
  if (b.baseline !== undefined)
    parts.push(bar(y + BAR_H + 2, b.baseline, scale, COLORS.baseline, b.unit));
  return parts.join('');
}

/** The SVG of every scenario's bars, or undefined when no scenario gave any. */
export function renderChart(report: BenchReport): string | undefined {
  const parts: string[] = [];
  let y = 20;
  for (const { name, result } of report.scenarios) {
    if (!result.chart?.length) continue;
    const [, target = 'target', baseline = 'baseline'] = result.columns;
    parts.push(
      `<text x="10" y="${y + 12}" font-weight="bold" font-size="14">${esc(name)}</text>`,
      `<rect x="${LABEL_W}" y="${y + 2}" width="12" height="12" fill="${COLORS.value}"/>`,
      `<text x="${LABEL_W + 18}" y="${y + 12}">${esc(target)}</text>`,
      `<rect x="${LABEL_W + 180}" y="${y + 2}" width="12" height="12" fill="${COLORS.baseline}"/>`,
      `<text x="${LABEL_W + 198}" y="${y + 12}">${esc(baseline)}</text>`,
    );
    y += 28;
    for (const b of result.chart) {
      parts.push(group(y, b));
      y += GROUP_H;
    }
    y += 16;
  }
  if (parts.length === 0) return undefined;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${y}" ` +
    `viewBox="0 0 ${WIDTH} ${y}" font-family="sans-serif" font-size="12">` +
    `<rect width="100%" height="100%" fill="white"/>${parts.join('')}</svg>\n`
  );
}
