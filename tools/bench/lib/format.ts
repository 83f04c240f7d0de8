/** Number formats of the report, so every scenario prints figures the same way. */
const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export const perSec = (n: number): string => (Number.isFinite(n) ? grouped.format(n) : 'n/a');
export const ms = (n: number): string => (Number.isFinite(n) ? n.toFixed(2) : 'n/a');
export const us = (n: number): string => (Number.isFinite(n) ? n.toFixed(0) : 'n/a');
/** Rounded down, so that a printed ratio is never above the figure a `≥` target is checked on. */
export const ratio = (n: number): string =>
  Number.isFinite(n) ? (Math.floor(n * 100) / 100).toFixed(2) : 'n/a';
/** Rounded up, so that a printed latency is never below the figure a `≤` target is checked on. */
export const msUp = (n: number): string =>
  Number.isFinite(n) ? (Math.ceil(n * 100) / 100).toFixed(2) : 'n/a';
export const count = (n: number): string => grouped.format(n);
export const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
/** A share 0..1 as a percentage with one decimal. */
export const percent = (share: number): string =>
  Number.isFinite(share) ? `${(share * 100).toFixed(1)} %` : 'n/a';
