import { count, perSec, ratio, us } from '../lib/format.js';
import type { Cell, Check } from '../lib/scenario.js';
import {
  PACED_CALLS_PER_SEC,
  PACED_TO_MAX_TARGET,
  type CallCost,
  type PromptCalls,
} from './prompt-calls.js';
import type { PerProcess } from './stack.js';

/** The gateway's processes, as the rows name them. */
const GATEWAY: readonly (readonly [keyof PerProcess<number>, string])[] = [
  ['api', 'api'],
  ['node', 'media node'],
  ['dispatcher', 'dispatcher'],
  ['redis', 'redis'],
];

const gatewayTotal = (figures: PerProcess<number>): number =>
  GATEWAY.reduce((sum, [key]) => sum + figures[key], 0);

const pair = (paced: number, max: number, format: (n: number) => string): string =>
  `${format(paced)} / ${format(max)}`;

const tenth = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');

/**
 * The rows of the prompt calls (prompt-calls.ts), in the media-node table: each figure as
 * `at PACED_CALLS_PER_SEC / at the maximum`, the last column their ratio.
 */
export function promptCallRows({ paced, max, callers }: PromptCalls): Cell[][] {
  const at = `at ${PACED_CALLS_PER_SEC}/s / at max`;
  return [
    [
      `prompt calls/s (answer, 1 s playback, hangup, every event a webhook): ${at} (${callers} at once)`,
      pair(paced.load.perSec, max.load.perSec, perSec),
      '',
      '',
    ],
    ...GATEWAY.map(([key, name]): Cell[] => [
      `CPU per prompt call µs, ${at}: ${name}`,
      pair(paced.cpuUs[key], max.cpuUs[key], us),
      '',
      ratio(paced.cpuUs[key] / max.cpuUs[key]),
    ]),
    [
      `CPU per prompt call µs, ${at}: the four together`,
      pair(gatewayTotal(paced.cpuUs), gatewayTotal(max.cpuUs), us),
      '',
      ratio(gatewayTotal(paced.cpuUs) / gatewayTotal(max.cpuUs)),
    ],
    [
      `CPU per prompt call µs, ${at}: simulator`,
      pair(paced.cpuUs.simulator, max.cpuUs.simulator, us),
      '',
      '',
    ],
    [
      `wake-ups per prompt call, ${at}: api / media node / dispatcher / redis`,
      GATEWAY.map(([key]) => pair(paced.wakeups[key], max.wakeups[key], tenth)).join(' · '),
      '',
      '',
    ],
    [
      `CPU per wake-up µs at ${PACED_CALLS_PER_SEC}/s: api / media node / dispatcher / redis`,
      GATEWAY.map(([key]) => us(paced.cpuUs[key] / paced.wakeups[key])).join(' / '),
      '',
      '',
    ],
  ];
}

export function promptCallChecks({ paced, max }: PromptCalls): Check[] {
  const failed = paced.load.failed + max.load.failed;
  return [
    {
      target: 'every prompt call completed (otherwise its figures are not valid)',
      actual: `${count(failed)} failed`,
      pass: failed === 0,
    },
    ...GATEWAY.map(([key, name]) => {
      const share = paced.cpuUs[key] / max.cpuUs[key];
      return {
        target: `${name}: CPU per prompt call at ${PACED_CALLS_PER_SEC}/s ≤ ${PACED_TO_MAX_TARGET} × at max`,
        actual: `${us(paced.cpuUs[key])} / ${us(max.cpuUs[key])} µs = ${ratio(share)}`,
        pass: share <= PACED_TO_MAX_TARGET,
      };
    }),
  ];
}

export function promptCallNotes({ paced, max }: PromptCalls): string[] {
  const errors = [...paced.load.errors, ...max.load.errors];
  const run = (c: CallCost): string =>
    `${count(c.load.completed)} calls at ${perSec(c.load.perSec)}/s`;
  return [
    `prompt calls: a stack of their own, as production runs it (JSON logs at info, stdout ` +
      `discarded; the dispatcher delivering every event to the load generator, which takes ` +
      `each step on the webhook of the one before; Redis at hz 2); after a warm-up at the ` +
      `maximum, ${run(paced)} paced, then ${run(max)}; CPU of every thread and wake-ups of ` +
      `the main thread per completed call, from /proc, what a process does whatever the rate ` +
      `included`,
    ...(errors.length > 0
      ? [`prompt calls, first failures: ${errors.slice(0, 3).join(' | ')}`]
      : []),
  ];
}
