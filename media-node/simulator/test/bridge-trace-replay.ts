// Replays a bridge fixture against one or two simulators (the second where the recording had
// its second FreeSWITCH): SIP ports become the simulators' trunk ports, inbound channels are
// found by the X-Trace-Leg header their caller sent, and the phone network hanging up a leg
// becomes the control API's far-end hangup.
import type { Simulator } from '../src/index.js';
import type { BridgeFixture } from './fixtures/bridge-trace-fixture.js';
import { normalizeValue, type Step } from './fixtures/trace-fixture.js';
import { control, type EslClient } from '../src/client/index.js';
import {
  firstEvent,
  replaySteps,
  simBLeg,
  substituteUuids,
  type ReplayResult,
} from './trace-replay.js';

/** The recording's SIP ports: the first instance's, the second's. */
const SIP_PORTS = [5080, 5090];

export interface BridgeTarget {
  /** Each instance's simulator and client; the second only where the fixture has one. */
  readonly sims: Readonly<Record<number, Simulator>>;
  readonly clients: Readonly<Record<number, EslClient>>;
}

export interface BridgeReplay extends ReplayResult {
  /** The simulator's uuid of a recorded channel (the same unless the simulator chose it). */
  simUuid(recorded: string): string;
}

export async function replayBridge(
  fixture: BridgeFixture,
  target: BridgeTarget,
): Promise<BridgeReplay> {
  const clients = Object.values(target.clients);
  const ports = SIP_PORTS.map((port, i) => [port, target.sims[i + 1]?.sipPort] as const);
  const uuids = new Map<string, string>();
  const resolve = (recorded: string): Promise<string> | undefined => {
    const caller = fixture.sipLegs[recorded];
    if (caller) {
      const callee = (e: Record<string, string | undefined>) =>
        e['variable_sip_h_X-Trace-Leg'] === caller && e['Unique-ID'] !== caller;
      return firstEvent(clients, callee, 10_000).then((e) => e['Unique-ID'] ?? recorded);
    }
    return simBLeg(fixture, recorded, clients);
  };
  const substitute = async (s: string) => {
    let out = s;
    for (const [port, sim] of ports)
      if (sim) out = out.replaceAll(`127.0.0.1:${port}`, `127.0.0.1:${sim}`);
    return substituteUuids(out, uuids, resolve);
  };
  const normalize = (v: string) => {
    let out = v;
    for (const [recorded, sim] of uuids) out = out.replaceAll(sim, recorded);
    for (const [port, sim] of ports)
      if (sim) out = out.replaceAll(`127.0.0.1:${sim}`, `127.0.0.1:${port}`);
    return normalizeValue(out);
  };
  const divert = async (step: Step, line: string): Promise<string | undefined> => {
    const kill = /^api uuid_kill (\S+)(?: (\S+))?$/.exec(line);
    const leg = kill?.[1] && step.node === 2 ? fixture.farEnds[kill[1]] : undefined;
    if (!leg) return undefined;
    // The network's end of `leg` hangs up: the simulator plays it as the far end.
    const res = await control(target.sims[1]!, 'POST', `/sim/calls/${leg}/hangup`, {
      cause: kill?.[2] ?? 'NORMAL_CLEARING',
    });
    return res.status === 202 ? '+OK\n' : `-ERR ${res.status}\n`;
  };
  const replies = await replaySteps(fixture.steps, {
    clients: target.clients,
    substitute,
    divert,
  });
  for (const r of replies) {
    r.reply = normalize(r.reply);
    if (r.jobResult !== undefined) r.jobResult = normalize(r.jobResult);
  }
  return { replies, normalize, simUuid: (recorded) => uuids.get(recorded) ?? recorded };
}
