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

/** The parent asks a server child for its memory, measured after a full garbage collection. */
export interface MemoryRequest {
  readonly type: 'memory';
}

export interface MemoryReply {
  readonly type: 'memory';
  readonly rss: number;
  readonly heapUsed: number;
  /** Buffers and other memory outside the V8 heap. */
  readonly external: number;
}

export const isMemoryReply = (message: unknown): message is MemoryReply =>
  typeof message === 'object' &&
  message !== null &&
  (message as { type?: unknown }).type === 'memory' &&
  typeof (message as { heapUsed?: unknown }).heapUsed === 'number';

/**
 * Answers the parent's memory requests (start the child with `--expose-gc`, or the figures
 * include garbage not yet collected).
 */
export function answerMemoryRequests(): void {
  process.on('message', (message: unknown) => {
    if ((message as Partial<MemoryRequest> | null)?.type !== 'memory') return;
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    gc?.();
    const { rss, heapUsed, external } = process.memoryUsage();
    const reply: MemoryReply = { type: 'memory', rss, heapUsed, external };
    process.send?.(reply);
  });
}

/** Share of the commands whose hops are stamped (see shared/src/hop-trace.ts). */
export const HOP_SAMPLE = 1 / 8;

/** The parent asks a server child for the hop stamps taken since the last request. */
export interface HopsRequest {
  readonly type: 'hops';
}

export interface HopsReply {
  readonly type: 'hops';
  readonly marks: HopMarks;
}

export const isHopsReply = (message: unknown): message is HopsReply =>
  typeof message === 'object' &&
  message !== null &&
  (message as { type?: unknown }).type === 'hops' &&
  typeof (message as { marks?: unknown }).marks === 'object';

/**
 * Stamps the hops of a sample of commands in this child when the parent asks for them
 * (`BENCH_HOP_SAMPLE`, set by the media-node stack only: the api-command scenario measures the
 * api without them), and hands them to the parent on request.
 */
export function answerHopsRequests(): void {
  hopTrace.enable(Number(process.env.BENCH_HOP_SAMPLE ?? 0));
  process.on('message', (message: unknown) => {
    if ((message as Partial<HopsRequest> | null)?.type !== 'hops') return;
    const reply: HopsReply = { type: 'hops', marks: hopTrace.take() };
    process.send?.(reply);
  });
}
