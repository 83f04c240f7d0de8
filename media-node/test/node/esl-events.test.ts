import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { FsEvent } from '../../src/esl/event.js';
import { takeJsonEvents } from '../../src/esl/json-events.js';
import type { ModeslConnection, ModeslParser } from '../../src/esl/modesl.js';

// modesl's own frame parser, fed the bytes of a socket.
const Parser = createRequire(import.meta.url)('modesl/lib/esl/Parser') as new (
  socket: EventEmitter,
) => ModeslParser & EventEmitter;

function frame(type: string, body: string): Buffer {
  return Buffer.from(
    `Content-Length: ${Buffer.byteLength(body)}\nContent-Type: ${type}\n\n${body}`,
  );
}

describe('event frames', () => {
  it('become FsEvents from their JSON, multi-valued headers as text; other frames stay modesl’s', () => {
    const socket = new EventEmitter();
    const parser = new Parser(socket);
    const events: FsEvent[] = [];
    const replies: unknown[] = [];
    parser.on('esl::event', (_event: unknown, headers: Record<string, unknown>) =>
      replies.push(headers['Content-Type']),
    );
    takeJsonEvents({ parser } as unknown as ModeslConnection, (event) => events.push(event));

    const json = JSON.stringify({
      'Event-Name': 'BACKGROUND_JOB',
      'Job-UUID': 'job-1',
      'Content-Length': '3',
      Multi: ['a', 'b'],
      _body: '+OK',
    });
    socket.emit(
      'data',
      Buffer.concat([frame('text/event-json', json), frame('api/response', 'x')]),
    );

    expect(events.map((e) => [e.headers, e.body])).toEqual([
      [
        {
          'Event-Name': 'BACKGROUND_JOB',
          'Job-UUID': 'job-1',
          'Content-Length': '3',
          Multi: 'a,b',
        },
        '+OK',
      ],
    ]);
    expect(events[0]?.header('Multi')).toBe('a,b');
    expect(events[0]?.header('_body')).toBeUndefined();
    expect(replies).toEqual(['api/response']);
  });
});
