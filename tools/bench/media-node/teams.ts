import type { LiveCall } from './flows.js';

/**
 * Teams of live calls (one app each: a room, a bridge) taken in turn, each rested for `restMs`
 * after its use: the api's cooldown of the command that reuses them.
 */
export class Teams {
  private readonly queue: { calls: readonly LiveCall[]; readyAt: number }[];

  constructor(
    teams: readonly (readonly LiveCall[])[],
    private readonly restMs: number,
  ) {
    this.queue = teams.map((calls) => ({ calls, readyAt: 0 }));
  }

  get size(): number {
    return this.queue.length;
  }

  /** Whether a take now would get a team without waiting for one to be given back or rested. */
  get ready(): boolean {
    const head = this.queue[0];
    return head !== undefined && head.readyAt <= Date.now();
  }

  async take(): Promise<readonly LiveCall[]> {
    for (;;) {
      const head = this.queue.shift();
      if (head) {
        const wait = head.readyAt - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        return head.calls;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  give(calls: readonly LiveCall[]): void {
    this.queue.push({ calls, readyAt: Date.now() + this.restMs });
  }
}

/** Teams of `size` calls of one app each (a room, a bridge, belongs to one app); the rest left out. */
export function teamsByApp(calls: readonly LiveCall[], size: number): LiveCall[][] {
  const byApp = new Map<string, LiveCall[]>();
  for (const call of calls) {
    const app = call.app?.appId ?? '';
    byApp.set(app, [...(byApp.get(app) ?? []), call]);
  }
  const teams: LiveCall[][] = [];
  for (const group of byApp.values()) {
    for (let i = 0; i + size <= group.length; i += size) teams.push(group.slice(i, i + size));
  }
  return teams;
}
