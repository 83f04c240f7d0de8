import { hopTrace, type HopMarks } from '@voicegw/shared';

/** What a server child tells its parent over the IPC channel once it listens. */
export interface ListeningMessage {
  readonly type: 'listening';
  readonly port: number;
  /** What else the parent needs to know (a media node's prefix, a simulator's ESL port). */
  readonly info?: Readonly<Record<string, string>>;
}

export const isListeningMessage = (message: unknown): message is ListeningMessage =>
  typeof message === 'object' &&
  message !== null &&
  (message as { type?: unknown }).type === 'listening' &&
  typeof (message as { port?: unknown }).port === 'number';

/** Reports the port to the parent and closes on SIGTERM/SIGINT or when the parent goes away. */
export function serveUntilStopped(
  port: number,
  close: () => Promise<void>,
  info?: Readonly<Record<string, string>>,
): void {
  const message: ListeningMessage = { type: 'listening', port, ...(info ? { info } : {}) };
  process.send?.(message);
  let closing = false;
  const stop = (): void => {
    if (closing) return;
    closing = true;
    // process.exit (not a natural end) so that --cpu-prof writes its profile every time.
    close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.once('disconnect', stop);
}

/** What the parent can ask a server child for over IPC: `{ type }`, answered with the same type. */
type RequestType = 'memory' | 'hops';

/** Answers the parent's requests of one type with what `reply` gives at that moment. */
function answerRequests<R extends { readonly type: RequestType }>(
  type: R['type'],
  reply: () => R,
): void {
  process.on('message', (message: unknown) => {
    if ((message as { type?: unknown } | null)?.type === type) process.send?.(reply());
  });
}

/** A guard for the replies of one type: an object of that type with `field` of type `kind`. */
const isReply =
  <R>(type: RequestType, field: string, kind: 'number' | 'object') =>
  (message: unknown): message is R =>
    typeof message === 'object' &&
    message !== null &&
    (message as { type?: unknown }).type === type &&
    typeof (message as Record<string, unknown>)[field] === kind;

/** A server child's memory, measured after a full garbage collection. */
export interface MemoryReply {
  readonly type: 'memory';
  readonly rss: number;
  readonly heapUsed: number;
  /** Buffers and other memory outside the V8 heap. */
  readonly external: number;
}

export const isMemoryReply = isReply<MemoryReply>('memory', 'heapUsed', 'number');

/**
 * Answers the parent's memory requests (start the child with `--expose-gc`, or the figures
 * include garbage not yet collected).
 */
export function answerMemoryRequests(): void {
  answerRequests('memory', (): MemoryReply => {
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    gc?.();
    const { rss, heapUsed, external } = process.memoryUsage();
    return { type: 'memory', rss, heapUsed, external };
  });
}

/** Share of the commands whose hops are stamped (see shared/src/hop-trace.ts). */
export const HOP_SAMPLE = 1 / 8;

/** The hop stamps a server child took since the parent last asked. */
export interface HopsReply {
  readonly type: 'hops';
  readonly marks: HopMarks;
}

export const isHopsReply = isReply<HopsReply>('hops', 'marks', 'object');

/**
 * Stamps the hops of a sample of commands in this child when the parent asks for them
 * (`BENCH_HOP_SAMPLE`, set by the media-node stack only: the api-command scenario measures the
 * api without them), and hands them to the parent on request.
 */
export function answerHopsRequests(): void {
  hopTrace.enable(Number(process.env.BENCH_HOP_SAMPLE ?? 0));
  answerRequests('hops', (): HopsReply => ({ type: 'hops', marks: hopTrace.take() }));
}
