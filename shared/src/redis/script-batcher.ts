import { atEndOfTurn } from '../net/end-of-turn.js';
import type { ScriptName } from './lua/index.js';
import type { ScriptArg, ScriptRun } from './script-spec.js';
import type { LuaScripts } from './scripts.js';

export interface ScriptBatcherOptions<N extends ScriptName> {
  /**
   * A batch script (`<name>-n.lua`): the keys and arguments of every call back to back (each
   * laid out by the script's builder), two reply entries per call, in order.
   */
  readonly script: N;
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
 * as if each were alone. A call waits at most until the poll phase ends (atEndOfTurn), so an
 * idle server adds no latency worth measuring. If the script call fails, every call in the
 * batch fails with its error.
 */
export class ScriptBatcher<N extends ScriptName> {
  private keys: string[] = [];
  private args: ScriptArg[] = [];
  private waiters: Waiter[] = [];
  private scheduled = false;

  constructor(
    private readonly scripts: LuaScripts,
    private readonly options: ScriptBatcherOptions<N>,
  ) {}

  /** One call, made by the script's builder (which gives every call the same layout). */
  call({ keys, args }: ScriptRun<N>): Promise<BatchReply> {
    const { maxCalls } = this.options;
    return new Promise<BatchReply>((resolve, reject) => {
      this.keys.push(...keys);
      this.args.push(...args);
      this.waiters.push({ resolve, reject });
      if (this.waiters.length >= maxCalls) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        atEndOfTurn(this.flushScheduled);
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
    this.scripts.run({ name: this.options.script, keys, args }).then(
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
