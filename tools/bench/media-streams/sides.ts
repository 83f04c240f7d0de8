import type { EslClient } from '@voicegw/simulator/client';
import type { ChildServer } from '../lib/child-server.js';
import type { JsonClient } from '../lib/http-json.js';
import { gatewayCall, gatewayHangup, rawCall } from '../media-node/flows.js';
import type { Gateway } from '../media-node/stack.js';
import type { EchoApp } from './echo-app.js';

/** A call with a bidirectional stream to the echo app. */
export interface StreamCall {
  /** The simulator's channel uuid. */
  readonly uuid: string;
  /** The echo app's name for its connection. */
  readonly key: string;
  close(): Promise<void>;
}

/** One side of the comparison: the process that relays, and how a stream is opened. */
export interface StreamSide {
  readonly relay: ChildServer;
  open(): Promise<StreamCall>;
}

const noRecord = (): void => undefined;

/** Through the gateway: a call answered through the api, then `stream/start` bidirectional. */
export function gatewaySide(gw: Gateway, control: JsonClient, echo: EchoApp): StreamSide {
  let next = 0;
  return {
    relay: gw.node,
    async open() {
      const app = gw.apps[next++ % gw.apps.length]!;
      const call = await gatewayCall(gw, control, app, noRecord, true);
      const reply = await gw.http.expect(
        202,
        'POST',
        `/api/v1/sessions/${call.id}/commands/stream/start`,
        app.headers,
        { url: echo.url(`/gw/${call.id}`), track: 'inbound', bidirectional: true },
      );
      const result = await gw.events.once(`command.result:op:${String(reply.operation_id)}`);
      if (result.success !== true) throw new Error(`stream/start: ${JSON.stringify(result)}`);
      return {
        uuid: call.id.slice(gw.prefix.length + 1),
        key: call.id,
        close: () => gatewayHangup(gw, call),
      };
    },
  };
}

/** The baseline: a call answered over a bare event socket, then handed to the bare relay. */
export function bareSide(
  relay: ChildServer,
  esl: EslClient,
  control: JsonClient,
  echo: EchoApp,
): StreamSide {
  const relayHttp = relay.origin;
  return {
    relay,
    async open() {
      const { id: uuid } = await rawCall(esl, control, noRecord, true);
      const res = await fetch(`${relayHttp}/streams`, {
        method: 'POST',
        body: JSON.stringify({ uuid, url: echo.url(`/bare/${uuid}`) }),
      });
      if (res.status !== 200) throw new Error(`bare relay: ${res.status} ${await res.text()}`);
      return {
        uuid,
        key: uuid,
        close: async () => void (await esl.api(`uuid_kill ${uuid}`)),
      };
    },
  };
}
