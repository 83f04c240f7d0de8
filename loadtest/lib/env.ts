/**
 * Settings of a run, from `k6 run -e NAME=value ...` or the environment (k6 passes exported
 * variables through `__ENV` too). A bad value throws in the init context, so k6 stops before
 * any load with a message naming the variable.
 */

function raw(name: string): string | undefined {
  const value = __ENV[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export function str(name: string, fallback: string): string {
  return raw(name) ?? fallback;
}

/** A variable that must be set (there is no sensible default, e.g. a secret). */
export function required(name: string, why: string): string {
  const value = raw(name);
  if (value === undefined) throw new Error(`${name} is required: ${why}`);
  return value;
}

export function num(name: string, fallback: number, minimum = 0): number {
  const value = raw(name);
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < minimum) {
    throw new Error(`${name} must be a number >= ${minimum}: ${value}`);
  }
  return parsed;
}

export function int(name: string, fallback: number, minimum = 1): number {
  const parsed = num(name, fallback, minimum);
  if (!Number.isInteger(parsed)) throw new Error(`${name} must be an integer: ${parsed}`);
  return parsed;
}

const DURATION = /^(\d+(\.\d+)?(ms|s|m|h))+$/;

/** A k6 duration string (`30s`, `2m`, `1m30s`). */
export function duration(name: string, fallback: string): string {
  const value = str(name, fallback);
  if (!DURATION.test(value)) throw new Error(`${name} must be a duration like 30s or 2m: ${value}`);
  return value;
}

/** Seconds of a k6 duration string, for sizing (VUs, session lifetimes). */
export function seconds(value: string): number {
  const units: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };
  const part = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  let total = 0;
  for (let m = part.exec(value); m !== null; m = part.exec(value)) {
    total += Number(m[1]) * (units[m[2] ?? 's'] ?? 1);
  }
  return total;
}

const withoutSlash = (url: string): string => url.replace(/\/+$/, '');

/** Where the gateway and its helpers are; every scenario reads the same variables. */
export const target = {
  /** The api: `npm start` listens on 8080; for a cluster, its ingress or Service URL. */
  baseUrl: withoutSlash(str('BASE_URL', 'http://127.0.0.1:8080')),
  /** The simulator's control API (`npm start`: 8090); `SIM_URL=` (empty) against real FreeSWITCH. */
  simUrl: __ENV.SIM_URL === '' ? '' : withoutSlash(str('SIM_URL', 'http://127.0.0.1:8090')),
  /** The loadtest receiver (`npx tsx loadtest/receiver/main.ts`): webhooks and audio files. */
  receiverUrl: withoutSlash(str('RECEIVER_URL', 'http://127.0.0.1:8099')),
};

/** The server-level admin key: `npm start` prints it, or set ADMIN_API_KEY for both. */
export function adminKey(): string {
  return required('ADMIN_API_KEY', 'the admin key the api runs with (apps are created with it)');
}
