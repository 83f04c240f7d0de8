import { EslClient } from '@voicegw/simulator/client';
import type { BenchOptions } from '../lib/options.js';
import type { Scenario, ScenarioResult } from '../lib/scenario.js';
import {
  gatewayCall,
  gatewayCommand,
  gatewayHangup,
  inParallel,
  rawCall,
  rawCommand,
} from '../media-node/flows.js';
import { collectHops } from '../media-node/hops.js';
import { measureCommands, measureMax, rampSessions, roundRobin } from '../media-node/measure.js';
import { measurePromptCalls } from '../media-node/prompt-calls.js';
import {
  promptCallChecks,
  promptCallNotes,
  promptCallRows,
} from '../media-node/prompt-calls-report.js';
import { mediaNodeReport } from '../media-node/report.js';
import { MediaStack } from '../media-node/stack.js';

/** Apps of the run: the per-app limit (10,000 a minute) never binds. */
const APPS = 20;
/** Live calls the command measurements spread their commands over. */
const COMMAND_CALLS = 200;
/** What the bare event-socket client subscribes to. */
const RAW_EVENTS = [
  'CHANNEL_PARK',
  'CHANNEL_ANSWER',
  'CHANNEL_HANGUP_COMPLETE',
  'CHANNEL_EXECUTE_COMPLETE',
];

const noRecord = (): void => undefined;

export const mediaNode: Scenario = {
  name: 'media-node',
  title:
    'One media node against the FreeSWITCH simulator: inbound calls/s, commands/s from api POST ' +
    'to command.result, live sessions and memory per session; baseline: the simulator driven ' +
    'over a bare event socket, no gateway in between; then CPU per call with a prompt at ' +
    '15 calls/s against the maximum, the gateway as production runs it',

  async run(options, log) {
    const result = await measureHotPaths(options, log);
    log('prompt calls: a stack as production runs it, with the dispatcher');
    const prompts = await measurePromptCalls(options, log);
    return {
      ...result,
      rows: [...result.rows, ...promptCallRows(prompts)],
      checks: [...result.checks, ...promptCallChecks(prompts)],
      notes: [...result.notes, ...promptCallNotes(prompts)],
    };
  },
};

/** Calls, commands and live sessions at their maximum, against the simulator alone. */
async function measureHotPaths(
  options: BenchOptions,
  log: (line: string) => void,
): Promise<ScenarioResult> {
  log('starting redis-server and the simulator');
  const stack = await MediaStack.start(options);
  try {
    // Baseline first: once a media node is connected it takes every parked call.
    const esl = await EslClient.connect(stack.eslPort, {
      password: stack.eslPassword,
      events: RAW_EVENTS,
      record: false,
    });
    log(`baseline: inbound calls, ${options.connections} at once, ${options.durationSec} s`);
    const rawCalls = await measureMax(stack, options, (r) => rawCall(esl, stack.control, r));
    log(`baseline: ${COMMAND_CALLS} live calls, then commands`);
    const rawOpened = await inParallel(
      Array.from({ length: COMMAND_CALLS }),
      options.connections,
      () => rawCall(esl, stack.control, noRecord, true),
    );
    const rawCommands = await measureCommands(
      stack,
      options,
      roundRobin(rawOpened.ok, (call, r) => rawCommand(esl, call, r)),
    );
    await esl.api('hupall NORMAL_CLEARING');
    esl.close();

    log('starting the media node and the api');
    const gw = await stack.startGateway(APPS, Math.ceil(options.sessions * 1.2) + COMMAND_CALLS);
    let app = 0;
    const nextApp = () => gw.apps[app++ % gw.apps.length]!;
    // The ramp first, while the node's memory holds nothing but its start-up.
    log(`gateway: live sessions up to ${options.sessions}`);
    const ramp = await rampSessions(stack, gw, options, log);
    await inParallel(ramp.live, options.connections, (call) => gatewayHangup(gw, call));

    log(`gateway: inbound calls, ${options.connections} at once, ${options.durationSec} s`);
    await collectHops(gw); // the ramp's
    const calls = await measureMax(stack, options, (r) =>
      gatewayCall(gw, stack.control, nextApp(), r),
    );
    const callHops = await collectHops(gw);
    log(`gateway: ${COMMAND_CALLS} live sessions, then commands`);
    const opened = await inParallel(
      Array.from({ length: COMMAND_CALLS }),
      options.connections,
      () => gatewayCall(gw, stack.control, nextApp(), noRecord, true),
    );
    const commands = await measureCommands(
      stack,
      options,
      roundRobin(opened.ok, (call, r) => gatewayCommand(gw, call, r)),
      () => collectHops(gw),
    );
    await inParallel(opened.ok, options.connections, (call) => gatewayHangup(gw, call));

    return mediaNodeReport(options, {
      rawCalls,
      rawCommands,
      calls,
      callHops,
      commands,
      ramp,
      openFailures: { gateway: opened, baseline: rawOpened },
      redisVersion: await stack.redisVersion(),
      eventsRead: gw.events.read,
    });
  } finally {
    await stack.stop();
  }
}
