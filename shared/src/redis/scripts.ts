import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';

const LUA_DIR = fileURLToPath(new URL('./lua/', import.meta.url));

/**
 * Script names, from the files `lua/<name>-<numberOfKeys>.lua`; `<name>-n.lua` takes any number
 * of keys (a batch script: the keys of every call in it, back to back).
 */
export type ScriptName =
  | 'sessionCommands'
  | 'parkEvents'
  | 'settleLane'
  | 'deadLetterLane'
  | 'replayDeadLetters'
  | 'webhookFailed'
  | 'rateLimit'
  | 'placeDial'
  | 'createRoom'
  | 'deleteRoom'
  | 'roomControl'
  | 'addCallerIds'
  | 'claimDids'
  | 'releaseDid'
  | 'endSession'
  | 'updateSession'
  | 'conferenceMember'
  | 'roomPlaybackDone'
  | 'recordingStarted'
  | 'recordingStopped'
  | 'recordingExpired';

interface ScriptFile {
  readonly name: string;
  readonly keys: number | 'any';
  readonly lua: string;
}

/** Inlines `--- @include "name"` lines with `lua/includes/name.lua`, as BullMQ does. */
function withIncludes(lua: string): string {
  return lua.replace(/^--- @include "([\w-]+)"$/gm, (_line, name: string) =>
    readFileSync(`${LUA_DIR}includes/${name}.lua`, 'utf8'),
  );
}

function readScripts(): ScriptFile[] {
  return readdirSync(LUA_DIR)
    .filter((f) => f.endsWith('.lua'))
    .map((file) => {
      const match = /^(.+)-(\d+|n)\.lua$/.exec(file);
      if (!match?.[1] || !match[2])
        throw new Error(`Lua file ${file} must be named <name>-<keys>.lua or <name>-n.lua`);
      const lua = withIncludes(readFileSync(LUA_DIR + file, 'utf8'));
      return { name: match[1], keys: match[2] === 'n' ? 'any' : Number(match[2]), lua };
    });
}

const SCRIPTS = readScripts();

type ScriptFn = (...args: (string | number)[]) => Promise<unknown>;

/**
 * The gateway's Lua scripts registered on one connection (EVALSHA with EVAL fallback, via
 * ioredis defineCommand). The number of keys comes from the file name, BullMQ style.
 */
export class LuaScripts {
  private readonly expectedKeys = new Map<string, number | 'any'>();

  constructor(private readonly redis: Redis) {
    for (const script of SCRIPTS) {
      // Without numberOfKeys, ioredis takes the key count as the first argument of each call.
      redis.defineCommand(
        script.name,
        script.keys === 'any'
          ? { lua: script.lua }
          : { numberOfKeys: script.keys, lua: script.lua },
      );
      this.expectedKeys.set(script.name, script.keys);
    }
  }

  run(
    name: ScriptName,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown> {
    const expected = this.expectedKeys.get(name);
    if (expected !== 'any' && expected !== keys.length) {
      throw new Error(`script ${name} takes ${expected ?? '?'} keys, got ${keys.length}`);
    }
    const fn = (this.redis as unknown as Record<string, ScriptFn>)[name];
    if (!fn) throw new Error(`script ${name} is not registered`);
    return expected === 'any'
      ? fn.call(this.redis, keys.length, ...keys, ...args)
      : fn.call(this.redis, ...keys, ...args);
  }
}
