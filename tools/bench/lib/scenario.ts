import type { BenchOptions } from './options.js';

/** One cell of a result table: numbers are formatted by the report, strings printed as given. */
export type Cell = string | number;

/** A target of an issue, checked against a measured figure. */
export interface Check {
  readonly target: string;
  readonly actual: string;
  readonly pass: boolean;
}

/**
 * One group of bars of the report's chart: a measurement of the target and, when there is one,
 * of its baseline (the table's second and third columns name the two).
 */
export interface ChartBar {
  readonly label: string;
  readonly unit: string;
  readonly value: number;
  readonly baseline?: number;
}

/** What a scenario hands back: one table (side by side), the targets it checks, and notes. */
export interface ScenarioResult {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly Cell[])[];
  readonly checks: readonly Check[];
  /** How the figures were obtained (versions, rates, counts), printed under the table. */
  readonly notes: readonly string[];
  /** The figures worth a bar in the chart image (raw numbers, not the table's strings). */
  readonly chart?: readonly ChartBar[];
}

/**
 * A benchmark scenario (`tools/bench/scenarios/<name>.ts`). It starts what it needs, measures,
 * stops everything it started, and never fails the process on a missed target: it reports it.
 */
export interface Scenario {
  readonly name: string;
  /** One line: what is measured against what. */
  readonly title: string;
  run(options: BenchOptions, log: (line: string) => void): Promise<ScenarioResult>;
}
