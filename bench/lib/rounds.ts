/**
 * Runs `measure` for two targets, round after round, alternating which goes first (ABBA), so that
 * both see the same drift of a shared machine; reports take the median round. Returns each
 * target's runs in round order, so that runs of the same index were side by side in time.
 */
export async function alternate<A extends string, B extends string, T>(
  rounds: number,
  [first, second]: readonly [A, B],
  measure: (target: A | B, round: number) => Promise<T>,
): Promise<Record<A | B, T[]>> {
  const runs = { [first]: [] as T[], [second]: [] as T[] } as Record<A | B, T[]>;
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [first, second] : [second, first];
    for (const target of order) runs[target].push(await measure(target, round));
  }
  return runs;
}
