import { EslClient } from '@voicegw/simulator/client';
import type { Scenario } from '../lib/scenario.js';
import { bridgeReport } from '../media-node/bridge-report.js';
import { gatewayBridge, PAIR_REST_MS, rawBridge } from '../media-node/bridges.js';
import { gatewayCall, gatewayHangup, inParallel, rawCall } from '../media-node/flows.js';
import { collectHops } from '../media-node/hops.js';
import { measurePaced } from '../media-node/measure.js';
import { MediaStack } from '../media-node/stack.js';
import { Teams, teamsByApp } from '../media-node/teams.js';

/** Bridge commands per second, each followed by its unbridge. */
const RATE = 100;
/**
 * Pairs of answered calls per side. A pair is out for its bridge, its unbridge and its rest
 * (PAIR_REST_MS), about 1.2 s on a quiet machine: 120 in use at RATE; the rest absorb slow ones.
 */
const PAIRS = 250;
const APPS = 20;
const RAW_EVENTS = [
  'CHANNEL_PARK',
  'CHANNEL_ANSWER',
  'CHANNEL_HANGUP_COMPLETE',
  'CHANNEL_BRIDGE',
  'CHANNEL_UNBRIDGE',
];
const noRecord = (): void => undefined;

export const bridge: Scenario = {
  name: 'bridge',
  title:
    `Two answered calls bridged through the api and one media node at ${RATE} bridges/s: ` +
    'bridge → call.bridged of the commanded call; baseline: uuid_bridge over a bare event ' +
    'socket → its CHANNEL_BRIDGE, same simulator',

  async run(options, log) {
    log('starting redis-server and the simulator');
    const stack = await MediaStack.start(options);
    try {
      // Baseline first: once a media node is connected it takes every parked call.
      const esl = await EslClient.connect(stack.eslPort, {
        password: stack.eslPassword,
        events: RAW_EVENTS,
        record: false,
      });
      log(`baseline: ${PAIRS * 2} answered calls, then ${RATE} bridges/s`);
      const rawOpened = await inParallel(
        Array.from({ length: PAIRS * 2 }),
        options.connections,
        () => rawCall(esl, stack.control, noRecord, true),
      );
      const rawTeams = teamsByApp(rawOpened.ok, 2);
      const rawPairs = new Teams(rawTeams, PAIR_REST_MS);
      const bare = await measurePaced(stack, options, RATE, (r) => rawBridge(esl, rawPairs, r));
      await esl.api('hupall NORMAL_CLEARING');
      esl.close();

      log('starting the media node and the api');
      const gw = await stack.startGateway(APPS, PAIRS * 4);
      log(`gateway: ${PAIRS * 2} answered sessions, then ${RATE} bridges/s`);
      // Both calls of a pair of one app: a bridge to another app's session is refused.
      const opened = await inParallel(
        Array.from({ length: PAIRS * 2 }, (_, i) => Math.floor(i / 2)),
        options.connections,
        (pair) => gatewayCall(gw, stack.control, gw.apps[pair % APPS]!, noRecord, true),
      );
      const teams = teamsByApp(opened.ok, 2);
      const pairs = new Teams(teams, PAIR_REST_MS);
      await collectHops(gw); // the answers'
      const gateway = await measurePaced(stack, options, RATE, (r) => gatewayBridge(gw, pairs, r));
      const hops = await collectHops(gw);
      await inParallel(opened.ok, options.connections, (call) => gatewayHangup(gw, call));

      return bridgeReport({
        rate: RATE,
        gateway: { measured: gateway, opened, pairs: teams.length },
        hops,
        bare: { measured: bare, opened: rawOpened, pairs: rawTeams.length },
        redisVersion: await stack.redisVersion(),
        eventsRead: gw.events.read,
      });
    } finally {
      await stack.stop();
    }
  },
};
