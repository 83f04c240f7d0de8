/** One HTTP request of a load, as a scenario builds it. */
export interface RequestSpec {
  readonly method: 'POST' | 'GET';
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** What a load generator drives: an origin, the next request to send, the status expected. */
export interface LoadTarget {
  readonly origin: string;
  /** Called once per request; cycles through the scenario's pool (round robin). */
  readonly next: () => RequestSpec;
  readonly expectedStatus: number;
}
