import { createRequire } from 'node:module';
import type { Socket } from 'node:net';

// modesl ships no types: this is the part of its surface the ESL layer uses. Only this folder
// (src/esl) knows modesl exists.

export interface ModeslEvent {
  readonly headers: ReadonlyArray<{ readonly name: string; readonly value: unknown }>;
  getHeader(name: string): string | null;
  getBody(): string;
}

export type ModeslListener = (
  event: ModeslEvent,
  headers: Record<string, unknown>,
  body?: string,
) => void;

/** modesl's frame parser (one per connection, made when the socket connects). */
export interface ModeslParser {
  /** Turns one frame (its outer headers and body) into an event and emits it. */
  _parseEvent(headers: Record<string, unknown>, body?: string): void;
  emit(name: 'error', error: unknown): void;
}

export interface ModeslConnection {
  socket: Socket | null;
  parser?: ModeslParser;
  on(name: string, listener: ModeslListener | ((err: Error) => void)): void;
  off(name: string, listener: ModeslListener | ((err: Error) => void)): void;
  /** Writes a command; its `command/reply` goes to the next queued callback. */
  sendRecv(command: string, args: Record<string, string> | null, cb: ModeslListener): void;
  /** Writes `api <command>`; the `api/response` goes to the next queued callback. */
  api(command: string, cb: ModeslListener): void;
  /** Writes one request (command line, headers, blank line); every other request goes through it. */
  send(command: string, headers?: Record<string, string> | null): void;
  removeAllListeners(): void;
}

interface Modesl {
  Connection: new (
    host: string,
    port: number,
    password: string,
    ready: () => void,
  ) => ModeslConnection;
}

export const modesl = createRequire(import.meta.url)('modesl') as Modesl;
