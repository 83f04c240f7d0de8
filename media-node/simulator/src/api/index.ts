// API command dispatch: `api <cmd> <arg>` and `bgapi <cmd> <arg>` both land here.
import type { SimContext } from '../core/context.js';
import { originate } from '../core/originate.js';
import { conferenceApi } from '../conference/api.js';
import { CHANNEL_COMMANDS } from './channel-commands.js';
import { uuidBridge, uuidPark } from '../trunk/bridge.js';
import { VERSION, show, statusText, uuidDump } from './info.js';
import { sofiaApi } from './sofia.js';
import type { ApiHandler, ApiResult } from './types.js';

export type { ApiResult };

export function createApi(
  sessionsSinceStart: () => number,
): (ctx: SimContext, cmd: string, arg: string) => Promise<ApiResult> {
  const commands: Record<string, ApiHandler> = {
    ...CHANNEL_COMMANDS,
    originate: (ctx, arg) => originate(ctx, arg),
    uuid_bridge: uuidBridge,
    uuid_park: uuidPark,
    conference: (ctx, arg) => conferenceApi(ctx, arg),
    status: (ctx) => statusText(ctx, sessionsSinceStart()),
    version: () =>
      `FreeSWITCH Version ${VERSION} (1.10.12-release git a88d069 2024-08-02 21:02:27Z 64bit)\n`,
    show,
    uuid_dump: uuidDump,
    sofia: sofiaApi,
    http_clear_cache: () => '+OK\n',
    hostname: (ctx) => ctx.identity.hostname,
    switchname: (ctx) => ctx.identity.hostname,
    global_getvar: () => '',
  };
  return async (ctx, cmd, arg) => {
    const handler = commands[cmd.toLowerCase()];
    if (!handler) return `-ERR ${cmd} Command not found!\n`;
    try {
      return await handler(ctx, arg);
    } catch (err) {
      ctx.log.error({ err, cmd }, 'api command failed');
      return `-ERR ${(err as Error).message}\n`;
    }
  };
}
