import { EslClient } from '@voicegw/simulator/client';
import type { Scenario } from '../lib/scenario.js';
import { gatewayCall, gatewayHangup, inParallel, rawCall } from '../media-node/flows.js';
import { measureMax } from '../media-node/measure.js';
import { roomsReport } from '../media-node/rooms-report.js';
import { gatewayRoom, JOIN_COOLDOWN_MS, rawRoom, servePrompt } from '../media-node/rooms.js';
import { MediaStack } from '../media-node/stack.js';
import { Teams, teamsByApp } from '../media-node/teams.js';

/** Calls per room. */
const MEMBERS = 3;
/** Teams of MEMBERS calls; with the api's 2 s join cooldown they cap its rate at TEAMS / 2.1 s. */
const TEAMS = 400;
/** Room cycles in flight at once. */
const ROOMS_AT_ONCE = 10;
const APPS = 20;
const RAW_EVENTS = [
  'CHANNEL_PARK',
  'CHANNEL_ANSWER',
  'CHANNEL_HANGUP_COMPLETE',
  'CHANNEL_EXECUTE_COMPLETE',
  'CUSTOM',
  'conference::maintenance',
];
const noRecord = (): void => undefined;

export const conferenceChurn: Scenario = {
  name: 'conference-churn',
  title:
    `Conference rooms through the api and one media node: create, ${MEMBERS} live calls join ` +
    '(until conference.member.joined), play a prompt, delete (until every member left); ' +
    'baseline: the same on the simulator over a bare event socket',

  async run(options, log) {
    log('starting redis-server, the simulator and a prompt server');
    const stack = await MediaStack.start(options);
    const prompt = await servePrompt();
    const load = { ...options, connections: ROOMS_AT_ONCE };
    try {
      const esl = await EslClient.connect(stack.eslPort, {
        password: stack.eslPassword,
        events: RAW_EVENTS,
        record: false,
      });
      log(`baseline: ${TEAMS * MEMBERS} live calls, then rooms, ${ROOMS_AT_ONCE} at once`);
      const rawOpened = await inParallel(
        Array.from({ length: TEAMS * MEMBERS }),
        options.connections,
        () => rawCall(esl, stack.control, noRecord, true),
      );
      const rawTeams = new Teams(teamsByApp(rawOpened.ok, MEMBERS), 0);
      const raw = await measureMax(stack, load, (r) => rawRoom(esl, rawTeams, prompt.file, r));
      await esl.api('hupall NORMAL_CLEARING');
      esl.close();

      log('starting the media node and the api');
      const gw = await stack.startGateway(APPS, TEAMS * MEMBERS * 2);
      log(`gateway: ${TEAMS * MEMBERS} live sessions, then rooms, ${ROOMS_AT_ONCE} at once`);
      const opened = await inParallel(
        Array.from({ length: TEAMS * MEMBERS }, (_, i) => Math.floor(i / MEMBERS)),
        options.connections,
        (team) => gatewayCall(gw, stack.control, gw.apps[team % APPS]!, noRecord, true),
      );
      const teams = new Teams(teamsByApp(opened.ok, MEMBERS), JOIN_COOLDOWN_MS);
      const rooms = await measureMax(stack, load, (r) => gatewayRoom(gw, teams, prompt.url, r));
      await inParallel(opened.ok, options.connections, (call) => gatewayHangup(gw, call));

      return roomsReport({
        rooms,
        raw,
        members: MEMBERS,
        atOnce: ROOMS_AT_ONCE,
        cooldownCap: teams.size / (JOIN_COOLDOWN_MS / 1000),
        openFailures: { gateway: opened, baseline: rawOpened },
        eventsRead: gw.events.read,
      });
    } finally {
      await prompt.close();
      await stack.stop();
    }
  },
};
