// What libwsc (mod_audio_stream's WebSocket client) checks of the server's answer to its
// upgrade, applied to ws's client, which checks more: libwsc wants `HTTP/1.1 101` with a
// Sec-WebSocket-Accept header, whatever its value (WebSocketContext::handleRead), and reads no
// Upgrade or subprotocol header, nor an extension header when it offered none. A real module
// streams to a server that answers with a wrong accept; so does the simulator.
import { createHash } from 'node:crypto';
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

export interface UpgradeCheck {
  /** ws's `finishRequest` option: notes the request's key and sends it. */
  readonly finishRequest: (req: ClientRequest, ws: WebSocket) => void;
  /**
   * For ws's `upgrade` event: whether libwsc takes this answer; if it does, the answer is made
   * one that ws takes too.
   */
  readonly takes: (res: IncomingMessage) => boolean;
}

export function libwscUpgrade(offeredDeflate: boolean): UpgradeCheck {
  let key = '';
  return {
    finishRequest: (req) => {
      key = String(req.getHeader('Sec-WebSocket-Key') ?? '');
      req.end();
    },
    takes: (res) => {
      const { headers } = res;
      if (res.httpVersion !== '1.1' || headers['sec-websocket-accept'] === undefined) return false;
      headers['sec-websocket-accept'] = createHash('sha1')
        .update(key + GUID)
        .digest('base64');
      headers.upgrade = 'websocket';
      delete headers['sec-websocket-protocol'];
      if (!offeredDeflate) delete headers['sec-websocket-extensions'];
      return true;
    },
  };
}
