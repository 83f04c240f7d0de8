import { GatewayError } from '../errors/catalogue.js';
import type { Redis } from 'ioredis';

/**
 * Keyset pagination over a sorted set, for the conference list (rooms by creation time) and
 * the member list (sessions by join time). A cursor names the last item returned — its score and
 * member — so that rooms created or deleted between pages neither repeat nor skip others, as an
 * offset would. It is opaque to clients: base64url of a small JSON object.
 */
export interface Position {
  readonly score: number;
  readonly id: string;
}

export interface Page {
  readonly items: readonly Position[];
  /** Where the next page starts, or undefined on the last page. */
  readonly next: Position | undefined;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const MAX_CURSOR_LENGTH = 512;

export function encodeCursor(position: Position): string {
  return Buffer.from(JSON.stringify({ s: position.score, id: position.id })).toString('base64url');
}

/**
 * Decodes a cursor this api issued; anything else (other encodings, extra fields, an id of the
 * wrong kind) is 400 `Invalid cursor` rather than a guess at what the client meant.
 */
export function decodeCursor(cursor: string, isValidId: (id: string) => boolean): Position {
  const invalid = new GatewayError('INVALID_CURSOR');
  if (cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) throw invalid;
  const bytes = Buffer.from(cursor, 'base64url');
  // Node decodes leniently; only the canonical encoding of what was decoded is accepted.
  if (bytes.toString('base64url') !== cursor) throw invalid;
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw invalid;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid;
  const { s, id, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0) throw invalid;
  if (typeof s !== 'number' || !Number.isSafeInteger(s) || s < 0) throw invalid;
  if (typeof id !== 'string' || !isValidId(id)) throw invalid;
  return { score: s, id };
}

/**
 * Reads up to `limit` items after `after` (from the start without it), in (score, member)
 * order, in one round trip: the items sharing the cursor's score (rooms created in the same
 * millisecond) and a page of the items scored above it.
 */
export async function pageOf(
  redis: Redis,
  key: string,
  limit: number,
  after: Position | undefined,
): Promise<Page> {
  let items: Position[];
  if (after === undefined) {
    items = pairs(await redis.zrange(key, 0, limit, 'WITHSCORES'));
  } else {
    const replies = await redis
      .multi()
      .zrange(key, after.score, after.score, 'BYSCORE', 'WITHSCORES')
      .zrange(key, `(${after.score}`, '+inf', 'BYSCORE', 'LIMIT', 0, limit + 1, 'WITHSCORES')
      .exec();
    const [ties, above] = (replies ?? []).map(([error, reply]) => {
      if (error) throw error;
      return pairs(reply as string[]);
    });
    // Members of equal score are ordered bytewise, which is JS order for these ASCII ids.
    items = [...(ties ?? []).filter((item) => item.id > after.id), ...(above ?? [])];
  }
  const page = items.slice(0, limit);
  const last = page.at(-1);
  return { items: page, next: items.length > limit && last ? last : undefined };
}

function pairs(reply: readonly string[]): Position[] {
  const items: Position[] = [];
  for (let i = 0; i + 1 < reply.length; i += 2) {
    items.push({ id: reply[i] ?? '', score: Number(reply[i + 1]) });
  }
  return items;
}

/**
 * Reads up to `limit` items before `before` (from the newest without it) across several sorted
 * sets, in descending (score, member) order, in one round trip: per set, the items sharing the
 * cursor's score and a page of the items scored below it. The session list reads its indexes
 * (live and ended, inbound and outbound) this way, newest first.
 */
export async function newestPageOf(
  redis: Redis,
  keys: readonly string[],
  limit: number,
  before: Position | undefined,
): Promise<Page> {
  const multi = redis.multi();
  for (const key of keys) {
    if (before === undefined) {
      multi.zrange(key, '+inf', '-inf', 'BYSCORE', 'REV', 'LIMIT', 0, limit + 1, 'WITHSCORES');
    } else {
      multi.zrange(key, before.score, before.score, 'BYSCORE', 'WITHSCORES');
      multi.zrange(
        key,
        `(${before.score}`,
        '-inf',
        'BYSCORE',
        'REV',
        'LIMIT',
        0,
        limit + 1,
        'WITHSCORES',
      );
    }
  }
  const replies = (await multi.exec()) ?? [];
  const items = replies
    .flatMap(([error, reply]) => {
      if (error) throw error;
      return pairs(reply as string[]);
    })
    .filter((item) => before === undefined || item.score < before.score || item.id < before.id)
    .sort((a, b) => b.score - a.score || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const page = items.slice(0, limit);
  const last = page.at(-1);
  return { items: page, next: items.length > limit && last ? last : undefined };
}
