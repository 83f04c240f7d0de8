// How the far end of an outbound call behaves, per dialled number (set through the control
// API). Default: rings for a second, then answers.

export type Behavior = 'answer' | 'busy' | 'no_answer' | 'reject' | 'unavailable' | 'fail';

export interface NumberBehavior {
  readonly behavior: Behavior;
  /** How long the far end rings before the outcome (answer or refusal). */
  readonly ringMs: number;
  /** 183 with media (CHANNEL_PROGRESS_MEDIA) while ringing. */
  readonly earlyMedia: boolean;
}

/** The hangup cause each refusal produces. */
export const BEHAVIOR_CAUSE: Record<Exclude<Behavior, 'answer'>, string> = {
  busy: 'USER_BUSY',
  no_answer: 'NO_ANSWER',
  reject: 'CALL_REJECTED',
  unavailable: 'SUBSCRIBER_ABSENT',
  fail: 'NORMAL_TEMPORARY_FAILURE',
};

export const DEFAULT_BEHAVIOR: NumberBehavior = {
  behavior: 'answer',
  ringMs: 1000,
  earlyMedia: false,
};

export class NumberBook {
  private readonly entries = new Map<string, NumberBehavior>();

  set(number: string, behavior: NumberBehavior): void {
    this.entries.set(normalize(number), behavior);
  }

  delete(number: string): boolean {
    return this.entries.delete(normalize(number));
  }

  list(): Array<{ number: string } & NumberBehavior> {
    return [...this.entries].map(([number, b]) => ({ number, ...b }));
  }

  /**
   * The behaviour for a number. The extensions the reference traces dial through loopback keep
   * their recorded meaning: trace_park answers at once, trace_ring rings until answered or
   * timed out, trace_hangup_<CAUSE> refuses with that cause.
   */
  lookup(number: string): NumberBehavior & { cause?: string } {
    const hit = this.entries.get(normalize(number));
    if (hit) return hit;
    if (number === 'trace_park') return { behavior: 'answer', ringMs: 0, earlyMedia: false };
    if (number === 'trace_ring')
      return { behavior: 'no_answer', ringMs: Infinity, earlyMedia: false };
    const m = /^trace_hangup_([A-Z_]+)$/.exec(number);
    if (m) return { behavior: 'fail', ringMs: 0, earlyMedia: false, cause: m[1] };
    return DEFAULT_BEHAVIOR;
  }
}

/** `+15551234567`, `15551234567` and `tel:+1 555…` name the same number. */
function normalize(number: string): string {
  return number.replace(/^tel:/, '').replace(/[\s\-().]/g, '');
}
