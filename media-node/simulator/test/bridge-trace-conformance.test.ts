// The simulator replays each bridge scenario recorded on FreeSWITCH 1.10.12 (fixtures in
// fixtures/bridge-traces/, README.md there) and must give the same replies and, for every
// compared channel, the same events in the same order with the headers the media node reads;
// then, separately, the same bridge state headers (who a channel is bridged to, event by event).
// What the simulator cannot do yet is in OPEN_DIFFERENCES, each with what it does wrong: whoever
// fixes one removes its entry (BRIDGE_TRACES_OPEN=1 runs them all, to see what still differs).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../src/index.js';
import {
  BRIDGE_KEY_HEADERS,
  BRIDGE_SCENARIOS,
  BRIDGE_STATE_HEADERS,
  PHONE_NUMBERS,
  type BridgeFixture,
} from './fixtures/bridge-trace-fixture.js';
import { replayBridge, type BridgeReplay } from './bridge-trace-replay.js';
import { control, EslClient, type Ev } from './helpers.js';
import { expectedLeg, firstEvent, legEvents, loadFixture } from './trace-replay.js';

const STATE = 'bridge state';

export const OPEN_DIFFERENCES: Record<string, string> = {};

const runOpen = process.env.BRIDGE_TRACES_OPEN === '1';
const skipIf = (reason: string | undefined) => (reason && !runOpen ? it.skip : it);
const title = (text: string, open: string | undefined) => (open ? `${text} (open: ${open})` : text);

/** Replies whose content is a run's own data (a loopback B leg's uuid): shape only. */
const comparable = (line: string) => !/^api uuid_getvar \S+ other_loopback_leg_uuid/.test(line);

const pick = (e: Record<string, string>, headers: readonly string[]) =>
  Object.fromEntries(headers.filter((h) => e[h] !== undefined).map((h) => [h, e[h]]));

interface Node {
  readonly sim: Simulator;
  readonly client: EslClient;
}

async function startNode(n: number): Promise<Node> {
  const sim = await startSimulator({ eslPort: 0, httpPort: 0, sipPort: 0, hostname: `sim-${n}` });
  for (const [number, book] of Object.entries(PHONE_NUMBERS))
    await control(sim, 'PUT', `/sim/numbers/${number}`, book);
  return { sim, client: await EslClient.connect(sim.eslPort) };
}

// Scenarios run one after the other: each replay keeps the recording's timing.
describe('bridge trace conformance', () => {
  for (const { name } of BRIDGE_SCENARIOS) {
    describe(name, () => {
      const fixture = loadFixture<BridgeFixture>(name, 'bridge-traces');
      const legs = Object.keys(fixture.legs);
      let nodes: Node[] = [];
      let run: BridgeReplay;
      let events: Ev[] = [];

      // Runs only when one of the tests below does (vitest skips the hooks of a skipped suite).
      beforeAll(async () => {
        const count = fixture.steps.some((s) => s.node === 2) ? 2 : 1;
        nodes = await Promise.all([1, 2].slice(0, count).map((n) => startNode(n)));
        const clients = nodes.map((n) => n.client);
        run = await replayBridge(fixture, {
          sims: Object.fromEntries(nodes.map((n, i) => [i + 1, n.sim])),
          clients: Object.fromEntries(clients.map((c, i) => [i + 1, c])),
        });
        for (const uuid of legs) {
          const sim = run.simUuid(uuid);
          await firstEvent(
            clients,
            (e) => e['Event-Name'] === 'CHANNEL_DESTROY' && e['Unique-ID'] === sim,
            20_000,
          );
        }
        events = clients.flatMap((c) => c.events);
      }, 90_000);

      afterAll(async () => {
        for (const { sim, client } of nodes) {
          client.close();
          await sim.close();
        }
      });

      const actual = (uuid: string, headers: readonly string[]) =>
        legEvents(events, run.simUuid(uuid), fixture, run.normalize, headers);
      const expected = (uuid: string, headers: readonly string[]) =>
        expectedLeg(fixture, uuid).map((e) => pick(e, headers));

      const open = OPEN_DIFFERENCES[name];
      skipIf(open)(
        title('replies and per-channel event sequences match the recording', open),
        () => {
          for (const { step, reply, jobResult } of run.replies) {
            const where = `${step.node === 2 ? '[second instance] ' : ''}${step.line}`;
            if (step.kind === 'bgapi') expect(jobResult, where).toBe(step.jobResult);
            else if (!comparable(step.line)) expect(reply, where).toMatch(/\S/);
            else expect(reply, where).toBe(step.reply);
          }
          for (const uuid of legs)
            expect(actual(uuid, BRIDGE_KEY_HEADERS), `channel ${uuid}`).toEqual(
              expected(uuid, BRIDGE_KEY_HEADERS),
            );
        },
      );

      const openState = OPEN_DIFFERENCES[`${name}: ${STATE}`];
      skipIf(openState)(title(`${STATE} headers match the recording`, openState), () => {
        for (const uuid of legs)
          expect(actual(uuid, BRIDGE_STATE_HEADERS), `channel ${uuid}`).toEqual(
            expected(uuid, BRIDGE_STATE_HEADERS),
          );
      });
    });
  }
});
