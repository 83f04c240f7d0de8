/** What a server child tells its parent over the IPC channel once it listens. */
export interface ListeningMessage {
  readonly type: 'listening';
  readonly port: number;
}

export const isListeningMessage = (message: unknown): message is ListeningMessage =>
  typeof message === 'object' &&
  message !== null &&
  (message as { type?: unknown }).type === 'listening' &&
  typeof (message as { port?: unknown }).port === 'number';

/** Reports the port to the parent and closes on SIGTERM/SIGINT or when the parent goes away. */
export function serveUntilStopped(port: number, close: () => Promise<void>): void {
  const message: ListeningMessage = { type: 'listening', port };
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
