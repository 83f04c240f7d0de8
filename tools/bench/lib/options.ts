import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { busVariants, type BusVariant } from './bus-variants.js';

/** Options of `npm run bench`, compiled once from flags and environment, fully defaulted. */
export interface BenchOptions {
  /** Seconds of each measurement. */
  readonly durationSec: number;
  /** Seconds of full load before a target is measured (JIT, connection pools); not recorded. */
  readonly warmupSec: number;
  /** Concurrent HTTP connections of the load generator. */
  readonly connections: number;
  /** Scenario names to run; empty runs all. */
  readonly only: readonly string[];
  /**
   * Absolute directory for `--cpu-prof` of every server under test; undefined: no profiling.
   * A relative path is taken from npm's starting directory (`INIT_CWD`: the repository root for
   * the root's `npm run bench`), not from tools/bench, where the workspace's script runs.
   */
  readonly cpuProfileDir: string | undefined;
  /** Live sessions the media-node scenario ramps up to. */
  readonly sessions: number;
  /**
   * Rounds of a target-against-baseline comparison: the two are measured alternately, each
   * round next to each other in time, and the median round is reported.
   */
  readonly rounds: number;
  /** Concurrent bidirectional streams of the media-streams scenario's latency figures. */
  readonly streams: number;
  /**
   * Event buses whose publish → webhook latency the webhooks scenario compares, the Redis bus
   * first; empty (no `--bus`): not measured.
   */
  readonly buses: readonly BusVariant[];
}

export const USAGE = `npm run bench [-- options]
  --duration <s>      seconds per measurement        (BENCH_DURATION, default 10)
  --warmup <s>        seconds of warm-up per target  (BENCH_WARMUP, default 3)
  --connections <n>   concurrent connections         (BENCH_CONNECTIONS, default 50)
  --scenario <name>   run only this scenario, may repeat (BENCH_SCENARIO, comma-separated)
  --cpu-prof <dir>    V8 CPU profiles of the servers under test, one folder each (BENCH_CPU_PROF)
  --sessions <n>      live sessions the media-node scenario ramps up to (BENCH_SESSIONS, default 1000)
  --rounds <n>        alternating rounds of api-command, webhooks and media-streams (BENCH_ROUNDS,
                      default 3)
  --streams <n>       concurrent streams of media-streams' latency figures (BENCH_STREAMS, default 100)
  --bus <bus>         webhooks: publish → webhook latency on this bus against the Redis bus, may
                      repeat: redis | kafka[:NAME=value,...] (BENCH_BUS, space-separated; kafka
                      needs KAFKA_BROKERS)
  --help`;

class OptionsError extends Error {
  override name = 'OptionsError';
}

function positive(name: string, raw: string | undefined, fallback: number, integer: boolean) {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new OptionsError(`${name} must be a positive ${integer ? 'integer' : 'number'}: ${raw}`);
  }
  return value;
}

/** Flags win over environment variables, which win over defaults. */
export function parseOptions(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): BenchOptions | 'help' {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      scenario: { type: 'string', multiple: true },
      'cpu-prof': { type: 'string' },
      sessions: { type: 'string' },
      rounds: { type: 'string' },
      streams: { type: 'string' },
      bus: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const only = values.scenario ?? (env.BENCH_SCENARIO ?? '').split(',');
  const profileDir = values['cpu-prof'] ?? env.BENCH_CPU_PROF;
  return {
    durationSec: positive('duration', values.duration ?? env.BENCH_DURATION, 10, false),
    warmupSec: positive('warmup', values.warmup ?? env.BENCH_WARMUP, 3, false),
    connections: positive('connections', values.connections ?? env.BENCH_CONNECTIONS, 50, true),
    only: only.map((s) => s.trim()).filter((s) => s !== ''),
    cpuProfileDir:
      profileDir === undefined || profileDir === ''
        ? undefined
        : resolve(env.INIT_CWD ?? process.cwd(), profileDir),
    sessions: positive('sessions', values.sessions ?? env.BENCH_SESSIONS, 1000, true),
    rounds: positive('rounds', values.rounds ?? env.BENCH_ROUNDS, 3, true),
    streams: positive('streams', values.streams ?? env.BENCH_STREAMS, 100, true),
    buses: busVariants(values.bus ?? (env.BENCH_BUS ?? '').split(/\s+/).filter((s) => s), env),
  };
}
