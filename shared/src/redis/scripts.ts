import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { writeOnce, type UntilWritten } from './retry.js';
import { ScriptCall } from './script-call.js';

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
  | 'retryLaneNow'
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
  | 'failDeadCommands'
  | 'answerCommand'
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
  /** SHA1 of `lua`, as EVALSHA names the script. */
  readonly sha: string;
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
      const sha = createHash('sha1').update(lua).digest('hex');
      return { name: match[1], keys: match[2] === 'n' ? 'any' : Number(match[2]), lua, sha };
    });
}

const SCRIPTS = new Map(readScripts().map((script) => [script.name, script]));

/**
 * The gateway's Lua scripts, run on one connection: EVALSHA, and EVAL once when Redis answers
 * NOSCRIPT (a restarted or new Redis has not seen the script yet, and EVAL caches it). The number
 * of keys comes from the file name, BullMQ style.
 */
export class LuaScripts {
  /** `retry`: how hard a run tries; once by default. */
  constructor(
    private readonly redis: Redis,
    private readonly retry: UntilWritten = writeOnce,
  ) {}

  run(
    name: ScriptName,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown> {
    return this.retry(name, () => this.runOnce(name, keys, args));
  }

  private async runOnce(
    name: ScriptName,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown> {
    const script = SCRIPTS.get(name);
    if (!script) throw new Error(`script ${name} has no file`);
    if (script.keys !== 'any' && script.keys !== keys.length) {
      throw new Error(`script ${name} takes ${script.keys} keys, got ${keys.length}`);
    }
    const params = [script.sha, String(keys.length), ...keys];
    for (const arg of args) params.push(typeof arg === 'string' ? arg : String(arg));
    try {
      return await this.redis.sendCommand(new ScriptCall('evalsha', params));
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      params[0] = script.lua;
      return await this.redis.sendCommand(new ScriptCall('eval', params));
    }
  }
}
