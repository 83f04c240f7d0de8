// Values the global setup hands to every test file through vitest's provide/inject.
declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of the redis-server started for this run. */
    redisUrl: string;
  }
}
export {};
