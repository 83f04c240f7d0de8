/** One ARGV value; numbers travel as their decimal text. */
export type ScriptArg = string | number;

/** An ARGV slot: one value, or a fixed-length group of values (an event's four stream fields). */
export type ArgSlot = string | readonly [name: string, count: number];

/** A script's KEYS and ARGV by name, in the order its header lists them. */
export interface ScriptLayout {
  readonly name: string;
  /** KEYS in order; for a batch script, those of one call. */
  readonly keys: readonly string[];
  /** The fixed ARGV slots in order; for a batch script, those of one call. */
  readonly args: readonly ArgSlot[];
  /** Name of the ARGV after the fixed ones, any number of them. */
  readonly rest?: string;
  /**
   * A batch script (`<name>-n.lua`): calls laid out back to back, each with `keys` and `args`.
   * The loader hands it the per-call sizes as `KEYS_EACH` and `ARGV_EACH`.
   */
  readonly batch?: true;
}

/** One run of a script, its KEYS and ARGV in order; made by the script's builder. */
export interface ScriptRun<N extends string = string> {
  readonly name: N;
  readonly keys: readonly string[];
  readonly args: readonly ScriptArg[];
}

type Tuple<N extends number, T, R extends readonly T[] = []> = R['length'] extends N
  ? R
  : Tuple<N, T, readonly [...R, T]>;

type SlotName<S extends ArgSlot> = S extends string ? S : S[0];
type SlotValue<S extends ArgSlot> = S extends readonly [string, infer C extends number]
  ? Tuple<C, ScriptArg>
  : ScriptArg;

export type ScriptKeys<K extends readonly string[]> = { readonly [P in K[number]]: string };
export type ScriptArgs<A extends readonly ArgSlot[], R extends string> = {
  readonly [S in A[number] as SlotName<S>]: SlotValue<S>;
} & { readonly [P in R]: readonly ScriptArg[] };

/** Builds one run of a script from its keys and arguments by name. */
export interface ScriptBuilder<
  N extends string,
  K extends readonly string[],
  A extends readonly ArgSlot[],
  R extends string,
> {
  (keys: ScriptKeys<K>, args: ScriptArgs<A, R>): ScriptRun<N>;
  readonly layout: ScriptLayout & { readonly name: N };
}

/**
 * Declares a script's KEYS and ARGV by name (the test in shared/test/script-headers.test.ts
 * holds them to the script's header), and returns the builder callers make runs with: named
 * objects in, KEYS and ARGV in the script's order out, so the two sides cannot drift apart.
 */
export function defineScript<
  const N extends string,
  const K extends readonly string[],
  const A extends readonly ArgSlot[] = readonly [],
  const R extends string = never,
>(layout: {
  readonly name: N;
  readonly keys: K;
  readonly args?: A;
  readonly rest?: R;
  readonly batch?: true;
}): ScriptBuilder<N, K, A, R> {
  const slots: readonly ArgSlot[] = layout.args ?? [];
  const build = (keys: ScriptKeys<K>, args: ScriptArgs<A, R>): ScriptRun<N> => {
    const named = args as unknown as Record<string, ScriptArg | readonly ScriptArg[]>;
    const values: ScriptArg[] = [];
    for (const slot of slots) {
      const value = named[typeof slot === 'string' ? slot : slot[0]];
      if (Array.isArray(value)) values.push(...(value as readonly ScriptArg[]));
      else values.push(value as ScriptArg);
    }
    if (layout.rest !== undefined) values.push(...(named[layout.rest] as readonly ScriptArg[]));
    const byName = keys as Record<string, string>;
    return { name: layout.name, keys: layout.keys.map((key) => byName[key] ?? ''), args: values };
  };
  return Object.assign(build, { layout: { ...layout, args: slots } });
}

/** How many ARGV values a layout's fixed slots take. */
export const fixedArgCount = (layout: ScriptLayout): number =>
  layout.args.reduce((n, slot) => n + (typeof slot === 'string' ? 1 : slot[1]), 0);
