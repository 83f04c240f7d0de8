import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { SCRIPT_BUILDERS, type ScriptName } from './lua/index.js';
import { writeOnce, type UntilWritten } from './retry.js';
import { ScriptCall } from './script-call.js';
import { scriptCodesLua } from './script-codes.js';
import { fixedArgCount, type ScriptLayout, type ScriptRun } from './script-spec.js';

const LUA_DIR = fileURLToPath(new URL('./lua/', import.meta.url));

interface ScriptFile {
  /** Keys of one run; undefined for a batch script, which takes any number. */
  readonly keys: number | undefined;
  readonly lua: string;
  /** SHA1 of `lua`, as EVALSHA names the script. */
  readonly sha: string;
}

/** A script's file: `<name>-<number of keys>.lua`, or `<name>-n.lua` for a batch script. */
export const scriptFileName = (layout: ScriptLayout): string =>
  `${layout.name}-${layout.batch ? 'n' : layout.keys.length}.lua`;

/**
 * Inlines `--- @include "name"` lines with `lua/includes/name.lua`, as BullMQ does. Two includes
 * are made from TypeScript, their one source: `scriptCodes` (the ScriptCode table) and
 * `batchLayout` (KEYS_EACH and ARGV_EACH, the per-call sizes of a batch script, from its
 * builder).
 */
function withIncludes(lua: string, layout: ScriptLayout): string {
  return lua.replace(/^--- @include "([\w-]+)"$/gm, (_line, name: string) => {
    if (name === 'scriptCodes') return scriptCodesLua();
    if (name === 'batchLayout') {
      return `local KEYS_EACH, ARGV_EACH = ${layout.keys.length}, ${fixedArgCount(layout)}`;
    }
    return readFileSync(`${LUA_DIR}includes/${name}.lua`, 'utf8');
  });
}

function readScript(layout: ScriptLayout): ScriptFile {
  const lua = withIncludes(readFileSync(LUA_DIR + scriptFileName(layout), 'utf8'), layout);
  const sha = createHash('sha1').update(lua).digest('hex');
  return { keys: layout.batch ? undefined : layout.keys.length, lua, sha };
}

const SCRIPTS = new Map<string, ScriptFile>(
  Object.values(SCRIPT_BUILDERS).map(({ layout }) => [layout.name, readScript(layout)]),
);

function scriptFile(name: ScriptName): ScriptFile {
  const script = SCRIPTS.get(name);
  if (!script) throw new Error(`script ${name} has no file`);
  return script;
}

/** A script as Redis runs it, its includes inlined. */
export const scriptSource = (name: ScriptName): string => scriptFile(name).lua;

/**
 * The gateway's Lua scripts, run on one connection: EVALSHA, and EVAL once when Redis answers
 * NOSCRIPT (a restarted or new Redis has not seen the script yet, and EVAL caches it). Each run
 * is made by the script's builder (`lua.<name>(keys, args)`), which lays out KEYS and ARGV.
 */
export class LuaScripts {
  /** `retry`: how hard a run tries; once by default. */
  constructor(
    private readonly redis: Redis,
    private readonly retry: UntilWritten = writeOnce,
  ) {}

  run(call: ScriptRun<ScriptName>): Promise<unknown> {
    return this.retry(call.name, () => this.runOnce(call));
  }

  /**
   * One try, whatever this instance's `retry`: for work that is refused rather than held while
   * Redis is away (an inbound call the carrier can take elsewhere).
   */
  async runOnce({ name, keys, args }: ScriptRun<ScriptName>): Promise<unknown> {
    const script = scriptFile(name);
    if (script.keys !== undefined && script.keys !== keys.length) {
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
