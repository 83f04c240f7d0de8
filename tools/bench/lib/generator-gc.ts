/**
 * The load generator's own garbage collection, kept out of latency measurements.
 *
 * The generator runs in the same two cores as the servers it measures. A full collection of its
 * heap during a paced run (traced: one every 10-20 s, 30-40 ms of marking with V8's helper
 * threads on both cores) took the CPU from the api and Redis at that moment: the api ran a fifth
 * of its usual share for ~30 ms, and a few hundred requests of the run came back 10-30 ms late,
 * spikes in the api's p99 that no host pause explained. Collecting just before each run leaves
 * the heap so small that a 10 s run does not reach the next collection.
 *
 * `npm run bench` starts node with --expose-gc; run otherwise, this does nothing and the report
 * says so (see `generatorGcNote`).
 */
const gc = (globalThis as { gc?: () => void }).gc;

export function collectGeneratorGarbage(): void {
  gc?.();
}

/** A report note where the generator cannot collect before its runs; undefined where it can. */
export function generatorGcNote(): string | undefined {
  return gc
    ? undefined
    : 'the load generator ran without --expose-gc (not through `npm run bench`), so it could ' +
        'not collect its garbage before each latency run: its own collections may show in the p99';
}
