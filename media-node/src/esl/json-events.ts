import { FsEvent } from './event.js';
import type { ModeslConnection } from './modesl.js';

/**
 * modesl turns every `text/event-json` frame into an Event of its own (each header pushed onto
 * an array, read back by linear search) and emits it under a wildcard name through
 * EventEmitter2, after which the headers were copied into an object once more. A call brings a
 * dozen such events of a hundred headers or more, and that was the largest share of the media
 * node's own CPU per call after its Redis writes. This parses an event frame's JSON once and
 * hands it to `onEvent` as it is; command replies, api responses and notices still go through
 * modesl. The node uses none of modesl's own event hooks (its execute and bgapi callbacks).
 */
export function takeJsonEvents(conn: ModeslConnection, onEvent: (event: FsEvent) => void): void {
  const { parser } = conn;
  if (!parser) return;
  const parseEvent = parser._parseEvent.bind(parser);
  parser._parseEvent = (headers, body) => {
    if (headers['Content-Type'] !== 'text/event-json' || body === undefined) {
      parseEvent(headers, body);
      return;
    }
    let fields: Record<string, unknown>;
    try {
      fields = JSON.parse(body) as Record<string, unknown>;
    } catch (err) {
      parser.emit('error', err);
      return;
    }
    const eventBody = fields._body;
    if (eventBody !== undefined) delete fields._body;
    // A multi-valued header arrives as a JSON array; FsEvent reads it as text when it is read.
    onEvent(new FsEvent(fields, typeof eventBody === 'string' ? eventBody : undefined));
  };
}
