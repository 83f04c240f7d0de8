import { EslClient } from '@voicegw/simulator/client';
import { startChildServer, type ChildServer } from '../lib/child-server.js';
import type { JsonClient } from '../lib/http-json.js';
import { gatewayCall, gatewayHangup, rawCall } from '../media-node/flows.js';
import type { Gateway, MediaStack } from '../media-node/stack.js';
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

export type SideName = 'gateway' | 'bare';

/** A side's processes, up for one measurement. */
export interface SideUp extends StreamSide {
  /** Hangs up every call left and stops the side's processes. */
  stop(): Promise<void>;
}

/**
 * Starts one side's processes on the stack. Only one side runs at a time: a connected media node
 * takes every parked call, the bare relay's too.
 */
export async function startSide(
  name: SideName,
  stack: MediaStack,
  echo: EchoApp,
  cpuProfileDir: string | undefined,
): Promise<SideUp> {
  if (name === 'gateway') {
    const gw = await stack.startGateway(20, 2000, { BENCH_ALLOW_LOCALHOST_WEBHOOKS: 'true' });
    return {
      ...gatewaySide(gw, stack.control, echo),
      async stop() {
        await hangUpAll(stack);
        // Its api client is the stack's to close, with the last gateway's.
        await gw.events.stop();
        await gw.node.stop();
        await gw.api.stop();
      },
    };
  }
  const relay = await startChildServer({
    file: 'bare-relay.ts',
    env: { BENCH_ESL_PORT: String(stack.eslPort), BENCH_ESL_PASSWORD: stack.eslPassword },
    cpuProfileDir,
    execArgv: ['--expose-gc'],
  });
  const esl = await EslClient.connect(stack.eslPort, {
    password: stack.eslPassword,
    events: ['CHANNEL_PARK', 'CHANNEL_ANSWER', 'CHANNEL_HANGUP_COMPLETE'],
    record: false,
  });
  return {
    ...bareSide(relay, esl, stack.control, echo),
    async stop() {
      await esl.api('hupall NORMAL_CLEARING');
      esl.close();
      await relay.stop();
    },
  };
}

/** Every call of the simulator hung up, over an event socket of its own. */
async function hangUpAll(stack: MediaStack): Promise<void> {
  const esl = await EslClient.connect(stack.eslPort, {
    password: stack.eslPassword,
    events: ['CHANNEL_HANGUP_COMPLETE'],
    record: false,
  });
  await esl.api('hupall NORMAL_CLEARING');
  esl.close();
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
