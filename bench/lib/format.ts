/** Number formats of the report, so every scenario prints figures the same way. */
const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export const perSec = (n: number): string => (Number.isFinite(n) ? grouped.format(n) : 'n/a');
export const ms = (n: number): string => (Number.isFinite(n) ? n.toFixed(2) : 'n/a');
export const ratio = (n: number): string => (Number.isFinite(n) ? n.toFixed(2) : 'n/a');
export const count = (n: number): string => grouped.format(n);
export const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
