import { modelPlayout, POLICIES, type ModelScenario } from './media-streams/playout-model.js';

/**
 * `npx tsx tools/bench/playout-model.ts`: the figures docs/decisions/media-streams.md gives for
 * late ticks, from the playout model (media-streams/playout-model.ts): each way of sending an
 * echo's audio to mod_audio_stream's one-chunk buffer, in virtual time, with and without stalls
 * of the node's event loop.
 */
const BASE: ModelScenario = {
  seconds: 60,
  stalled: 'node',
  stallMs: 70,
  stallEveryMs: 2000,
  jitterMs: 2,
  loud: 5,
  of: 50,
  runs: 20,
};
const SCENARIOS: ReadonlyArray<readonly [string, ModelScenario]> = [
  ['no stalls, 0-2 ms jitter', { ...BASE, stallMs: 0 }],
  ["the node's 70 ms stall every 2 s, speech-like (5 loud chunks of 50)", BASE],
  ["the node's 150 ms stall every 5 s, speech-like", { ...BASE, stallMs: 150, stallEveryMs: 5000 }],
  ["the node's 70 ms stall every 2 s, loud throughout", { ...BASE, loud: 1, of: 1 }],
  [
    "the app's 70 ms stall every 2 s (its echo in a burst), speech-like",
    { ...BASE, stalled: 'app' },
  ],
];

const one = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
const header = [
  'policy',
  'latency p50 / p99 ms',
  'module waits /min',
  'waited ms /min',
  'dropped /min',
];
for (const [title, scenario] of SCENARIOS) {
  console.log(`\n${title} (${scenario.runs} runs of ${scenario.seconds} s)`);
  console.log(header.join(' | '));
  for (const policy of POLICIES) {
    const f = modelPlayout(policy, scenario);
    console.log(
      [
        policy,
        `${one(f.latencyP50)} / ${one(f.latencyP99)}`,
        one(f.waitsPerMin),
        one(f.waitMsPerMin),
        one(f.droppedPerMin),
      ].join(' | '),
    );
  }
}
