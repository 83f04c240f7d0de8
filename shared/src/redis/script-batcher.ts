import type { LuaScripts, ScriptName } from './scripts.js';

export interface ScriptBatcherOptions {
  /**
   * A batch script (`<name>-n.lua`): the keys and arguments of every call back to back, two
   * reply entries per call, in order.
   */
  readonly script: ScriptName;
  readonly keysPerCall: number;
  readonly argsPerCall: number;
  /** Calls in one script run at most; a full batch is sent at once, without waiting. */
  readonly maxCalls: number;
}

/** One call's share of the batch reply: a code and a value (null where there is none). */
export type BatchReply = readonly [code: number, value: string | number | null];

interface Waiter {
  readonly resolve: (reply: BatchReply) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Coalesces the calls made in one turn of the event loop into one run of a batch script. Under
 * load, the requests parsed in one poll phase share one round trip, one socket write and one
 * script run, where each used to pay for its own; Redis runs the calls one after the other
 * as if each were alone. A call waits at most until the poll phase ends (setImmediate), so an
 * idle server adds no latency worth measuring. If the script call fails, every call in the
 * batch fails with its error.
 */
export class ScriptBatcher {
  private keys: string[] = [];
  private args: (string | number)[] = [];
  private waiters: Waiter[] = [];
  private scheduled = false;

  constructor(
    private readonly scripts: LuaScripts,
    private readonly options: ScriptBatcherOptions,
  ) {}

  call(keys: readonly string[], args: readonly (string | number)[]): Promise<BatchReply> {
    const { script, keysPerCall, argsPerCall, maxCalls } = this.options;
    if (keys.length !== keysPerCall || args.length !== argsPerCall) {
      throw new Error(
        `${script} takes ${keysPerCall} keys and ${argsPerCall} arguments per call, ` +
          `got ${keys.length} and ${args.length}`,
      );
    }
    return new Promise<BatchReply>((resolve, reject) => {
      this.keys.push(...keys);
      this.args.push(...args);
      this.waiters.push({ resolve, reject });
      if (this.waiters.length >= maxCalls) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flushScheduled);
      }
    });
  }

  private readonly flushScheduled = (): void => {
    this.scheduled = false;
    this.flush();
  };

  private flush(): void {
    const { keys, args, waiters } = this;
    if (waiters.length === 0) return;
    this.keys = [];
    this.args = [];
    this.waiters = [];
    this.scripts.run(this.options.script, keys, args).then(
      (reply) => {
        if (!Array.isArray(reply) || reply.length !== 2 * waiters.length) {
          const error = new Error(
            `${this.options.script} answered ${describe(reply)} for ${waiters.length} calls`,
          );
          for (const waiter of waiters) waiter.reject(error);
          return;
        }
        waiters.forEach((waiter, i) =>
          waiter.resolve([
            Number(reply[2 * i]),
            (reply[2 * i + 1] as string | number | null) ?? null,
          ]),
        );
      },
      (error: unknown) => {
        for (const waiter of waiters) waiter.reject(error);
      },
    );
  }
}

const describe = (reply: unknown): string =>
  Array.isArray(reply) ? `${reply.length} entries` : typeof reply;
