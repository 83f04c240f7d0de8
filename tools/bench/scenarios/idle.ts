import type { Cell, Check, Scenario } from '../lib/scenario.js';
import {
  IDLE_CPU_TARGET_MS_PER_SEC,
  IDLE_WINDOW_SEC,
  measureIdle,
  type IdleRate,
} from '../media-node/idle.js';
import { MediaStack, type PerProcess } from '../media-node/stack.js';

/** Apps of the run, each with a DID and a webhook_url: configured, with nothing to do. */
const APPS = 20;
/** Windows of IDLE_WINDOW_SEC measured, at least (or three times --duration in all). */
const MIN_WINDOWS = 6;

/** The gateway's processes, in the order of the table; the simulator stands in for FreeSWITCH. */
const GATEWAY: readonly (readonly [keyof PerProcess<IdleRate>, string])[] = [
  ['api', 'api'],
  ['node', 'media node'],
  ['dispatcher', 'webhook dispatcher'],
  ['redis', 'redis-server'],
];

const fixed = (n: number, digits: number): string =>
  Number.isFinite(n) ? n.toFixed(digits) : 'n/a';

export const idle: Scenario = {
  name: 'idle',
  title:
    'The gateway with no calls, as production runs it (JSON logs at info, the dispatcher, ' +
    'apps with webhooks, Redis at hz 2): CPU and wake-ups per second of each process, against ' +
    `${IDLE_CPU_TARGET_MS_PER_SEC} ms of CPU per idle second`,

  async run(options, log) {
    const windows = Math.max(MIN_WINDOWS, Math.ceil((options.durationSec * 3) / IDLE_WINDOW_SEC));
    log('starting redis-server, the simulator, a media node, the api and the dispatcher');
    const stack = await MediaStack.start(options);
    try {
      await stack.startGateway(APPS, 1000, {}, 'production');
      log(`no calls: ${windows} windows of ${IDLE_WINDOW_SEC} s`);
      const figures = await measureIdle(stack, windows);
      const row = (key: keyof PerProcess<IdleRate>, name: string, target: string): Cell[] => [
        name,
        fixed(figures.median[key].cpuMsPerSec, 2),
        fixed(figures.median[key].wakeupsPerSec, 1),
        fixed(figures.mean[key].cpuMsPerSec, 2),
        target,
      ];
      const checks: Check[] = GATEWAY.map(([key, name]) => ({
        target: `${name}: at most ${IDLE_CPU_TARGET_MS_PER_SEC} ms of CPU per idle second`,
        actual: `${fixed(figures.median[key].cpuMsPerSec, 2)} ms/s`,
        pass: figures.median[key].cpuMsPerSec <= IDLE_CPU_TARGET_MS_PER_SEC,
      }));
      return {
        columns: [
          'process, no calls',
          'CPU ms per s',
          'wake-ups per s',
          'CPU ms per s, mean',
          'target CPU ms per s',
        ],
        rows: [
          ...GATEWAY.map(([key, name]) => row(key, name, `≤ ${IDLE_CPU_TARGET_MS_PER_SEC}`)),
          row('simulator', 'simulator (FreeSWITCH stand-in, not the gateway)', ''),
          row('generator', 'load generator (the apps: webhook receiver)', ''),
        ],
        checks,
        notes: [
          `${windows} windows of ${IDLE_WINDOW_SEC} s with no calls, after ${APPS} apps were ` +
            'configured and every process had run 40 s; each in a process of its own, started ' +
            'as in production with JSON logs at info (stdout discarded), redis-server with AOF ' +
            'everysec and hz 2',
          'CPU ms per s and wake-ups per s: the median window; the mean includes every window, ' +
            'a late collection of start-up garbage or a burst of another program included',
          'CPU: the run time of every thread from /proc/<pid>/task/*/schedstat (exact, not ' +
            'clock ticks); wake-ups: voluntary context switches of the main thread (the event ' +
            "loop, or Redis's), each a timer, a socket or a signal that woke it; read from " +
            '/proc before and after each window, so measuring sends no process a message',
        ],
      };
    } finally {
      await stack.stop();
    }
  },
};
