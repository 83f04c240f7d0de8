import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SCRIPT_BUILDERS, type ScriptName } from '../src/redis/lua/index.js';
import { ScriptCode, scriptCodesLua } from '../src/redis/script-codes.js';
import { fixedArgCount, type ScriptLayout } from '../src/redis/script-spec.js';
import { scriptFileName, scriptSource } from '../src/redis/scripts.js';

/**
 * The TypeScript ↔ Lua boundary: each builder against its script's header, the script list
 * against the directory, and the ScriptCode table against its Lua mirror.
 */
const LUA_DIR = fileURLToPath(new URL('../src/redis/lua/', import.meta.url));
const layouts: ScriptLayout[] = Object.values(SCRIPT_BUILDERS).map((builder) => builder.layout);
const names = Object.keys(SCRIPT_BUILDERS) as ScriptName[];

/** One named slot: KEYS or ARGV `first..last`; `last` undefined for "and any after". */
interface Slot {
  readonly kind: 'KEYS' | 'ARGV';
  readonly name: string;
  readonly first: number;
  readonly last: number | undefined;
}

const fileOf = (layout: ScriptLayout): string =>
  readFileSync(LUA_DIR + scriptFileName(layout), 'utf8');

/** The slots a header lists: `KEYS[1] name:`, `ARGV[5..8] name:`, `ARGV[3..] name:`. */
function headerSlots(lua: string): Slot[] {
  const header = /^--\[\[([\s\S]*?)\]\]/.exec(lua)?.[1] ?? '';
  const slot = /\b(KEYS|ARGV)\[(?:[ka]\+)?(\d+)(\.\.(\d*))?\]\s+(\w+):/g;
  return [...header.matchAll(slot)].map(([, kind, first, range, last, name]) => ({
    kind: kind as Slot['kind'],
    name: name ?? '',
    first: Number(first),
    last: range === undefined ? Number(first) : last ? Number(last) : undefined,
  }));
}

/** The slots a builder lays out, numbered as the header numbers them. */
function builderSlots(layout: ScriptLayout): Slot[] {
  const keys = layout.keys.map((name, i): Slot => ({
    kind: 'KEYS',
    name,
    first: i + 1,
    last: i + 1,
  }));
  let next = 1;
  const args = layout.args.map((slot): Slot => {
    const [name, count] = typeof slot === 'string' ? [slot, 1] : slot;
    const first = next;
    next += count;
    return { kind: 'ARGV', name, first, last: next - 1 };
  });
  const rest: Slot[] =
    layout.rest === undefined
      ? []
      : [{ kind: 'ARGV', name: layout.rest, first: next, last: undefined }];
  return [...keys, ...args, ...rest];
}

describe('Lua script builders', () => {
  it('cover exactly the scripts in shared/src/redis/lua/, each under its own name', () => {
    const files = readdirSync(LUA_DIR).filter((file) => file.endsWith('.lua'));
    expect(layouts.map(scriptFileName).sort()).toEqual(files.sort());
    for (const name of names) expect(SCRIPT_BUILDERS[name].layout.name).toBe(name);
  });

  it.each(layouts.map((layout) => [layout.name, layout] as const))(
    "%s lays out KEYS and ARGV as its script's header lists them",
    (_name, layout) => {
      expect(builderSlots(layout)).toEqual(headerSlots(fileOf(layout)));
    },
  );

  it('a batch script reads no slot beyond the per-call layout its builder gives it', () => {
    for (const layout of layouts.filter((l) => l.batch)) {
      const lua = scriptSource(layout.name as ScriptName);
      const each = `local KEYS_EACH, ARGV_EACH = ${layout.keys.length}, ${fixedArgCount(layout)}`;
      expect(lua).toContain(each);
      const highest = (pattern: RegExp): number =>
        Math.max(...[...lua.matchAll(pattern)].map((m) => Number(m[1])));
      expect(highest(/KEYS\[k \+ (\d+)\]/g)).toBe(layout.keys.length);
      expect(highest(/ARGV\[a \+ (\d+)\]/g)).toBe(fixedArgCount(layout));
      expect(layout.rest).toBeUndefined();
    }
  });

  it('build KEYS and ARGV in header order from named objects', () => {
    const run = SCRIPT_BUILDERS.createRoom(
      { roomNames: 'k1', room: 'k2', appRooms: 'k3', events: 'k4' },
      { appId: 'a', name: 'n', roomId: 'r', node: 'p', event: ['f1', 'v1', 'f2', 'v2'] },
    );
    expect(run).toEqual({
      name: 'createRoom',
      keys: ['k1', 'k2', 'k3', 'k4'],
      args: ['a', 'n', 'r', 'p', 'f1', 'v1', 'f2', 'v2'],
    });
    // @ts-expect-error a key of the layout is missing
    void (() => SCRIPT_BUILDERS.roomPlaybackDone({}, { operationId: 'x' }));
  });
});

describe('ScriptCode', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(inject('redisUrl'));
  });
  afterAll(() => redis.disconnect());

  it('gives every result a code of its own, -1 down to -N', () => {
    const codes = Object.values(ScriptCode) as number[];
    expect(codes).toEqual(codes.map((_, i) => -(i + 1)));
  });

  it('reaches Lua as the same table', async () => {
    const lua = `${scriptCodesLua()}\nreturn cjson.encode(ScriptCode)`;
    expect(JSON.parse(String(await redis.eval(lua, 0)))).toEqual(ScriptCode);
  });

  it('is how every script answers a failure: no negative literals, no unknown names', () => {
    for (const name of names) {
      const lua = scriptSource(name);
      for (const [, code] of lua.matchAll(/ScriptCode\.(\w+)/g)) {
        expect(ScriptCode, `${name} uses ScriptCode.${code}`).toHaveProperty(code ?? '');
      }
      if (lua.includes('ScriptCode.')) expect(lua).toContain('local ScriptCode = {');
      expect(lua, `${name} returns a negative literal`).not.toMatch(/return\s*\{?\s*-\d/);
    }
  });
});
