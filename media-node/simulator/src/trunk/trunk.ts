// The simulator's SIP trunk: a loopback listener (SIM_SIP_PORT) that turns an INVITE from
// another simulator into an inbound call, and the dialling side of originate to
// `sofia/<profile>/<user>@<host>:<port>`. Two simulators joined this way carry a call the way
// two FreeSWITCHes joined by SIP do (trace i): the far side's inbound channel is created and
// parked with Caller-Destination-Number = <user>; answer, hangup and DTMF cross over.
import { randomUUID } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Channel } from '../core/channel.js';
import { placeInboundCall, type InboundHost } from '../core/inbound.js';
import { TrunkLeg } from './leg.js';
import { TrunkWire, type TrunkMessage } from './protocol.js';

/** How a refused connection ends the call (mod_sofia: 503 → NORMAL_TEMPORARY_FAILURE). */
const UNREACHABLE_CAUSE = 'NORMAL_TEMPORARY_FAILURE';
/** Caller variables that become X- headers of the INVITE (mod_sofia's `sip_h_` prefix). */
const HEADER_VAR = /^sip_h_(X-[\w-]+)$/i;

export interface SipTarget {
  readonly host: string;
  readonly port: number;
}

export class Trunk {
  private readonly legs = new Set<TrunkLeg>();
  private readonly sockets = new Set<Socket>();
  private server: Server | undefined;

  constructor(private readonly ctx: InboundHost) {}

  /** Starts the listener; resolves with its port (0 picks a free one). */
  async listen(host: string, port: number): Promise<number> {
    const server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    const bound = (server.address() as AddressInfo).port;
    this.ctx.log.info({ host, port: bound }, 'SIP trunk listening');
    return bound;
  }

  /** The far end of an originate to <user>@<host>:<port>: the simulator listening there. */
  dial(a: Channel, target: SipTarget, user: string): void {
    const socket = connect(target.port, target.host);
    this.track(socket);
    let leg: TrunkLeg | undefined;
    const wire = new TrunkWire(socket, (message) => leg?.receive(message));
    socket.once('connect', () => {
      if (!a.alive) {
        wire.end();
        return;
      }
      leg = new TrunkLeg(a, 'caller', wire, (done) => this.legs.delete(done));
      this.legs.add(leg);
      wire.send({
        m: 'INVITE',
        call_id: `${randomUUID()}@${this.ctx.identity.ipv4}`,
        to: user,
        from: a.profile.callerIdNumber,
        from_name: a.profile.callerIdName,
        headers: headersOf(a),
      });
    });
    socket.on('error', (err) => {
      this.ctx.log.debug({ err, target }, 'trunk connection failed');
      if (!leg && a.alive) a.kill(UNREACHABLE_CAUSE);
    });
    socket.on('close', () => leg?.closed());
  }

  /** Sends the BYEs still waiting for their channel's CS_HANGUP, then closes every connection. */
  async close(): Promise<void> {
    for (const leg of [...this.legs]) leg.flush();
    for (const socket of this.sockets) socket.end();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
  }

  private accept(socket: Socket): void {
    this.track(socket);
    let leg: TrunkLeg | undefined;
    const wire = new TrunkWire(socket, (message: TrunkMessage) => {
      if (leg) return leg.receive(message);
      if (message.m !== 'INVITE') return;
      const ch = placeInboundCall(this.ctx, {
        to: message.to,
        from: message.from,
        fromName: message.from_name,
        fromHost: socket.remoteAddress?.replace(/^::ffff:/, '') ?? this.ctx.identity.ipv4,
        vars: [
          ['sip_call_id', message.call_id],
          ['sip_network_ip', socket.remoteAddress?.replace(/^::ffff:/, '') ?? ''],
          ...Object.entries(message.headers).map(
            ([name, value]) => [`sip_h_${name}`, value] as const,
          ),
        ],
      });
      leg = new TrunkLeg(ch, 'callee', wire, (done) => this.legs.delete(done));
      this.legs.add(leg);
    });
    socket.on('close', () => leg?.closed());
    socket.on('error', () => undefined);
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
  }
}

function headersOf(ch: Channel): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of ch.vars) {
    const m = HEADER_VAR.exec(name);
    if (m?.[1]) headers[m[1]] = value;
  }
  return headers;
}
