// What a listener asked to receive: event names (or ALL), CUSTOM subclasses, and filters.
import { header, type FsEvent } from './event.js';

export class EventSubscription {
  private enabled = false;
  private all = false;
  private readonly names = new Set<string>();
  private readonly subclasses = new Set<string>();
  private readonly filters: EventFilter[] = [];

  /** `event [fmt] NAME … [CUSTOM sub1 sub2 …]`; false when no keyword was understood. */
  add(words: string[]): boolean {
    let custom = false;
    let keys = 0;
    for (const w of words.filter(Boolean)) {
      if (custom) {
        this.subclasses.add(w);
        continue;
      }
      const name = w.toUpperCase();
      if (!/^[A-Z_]+$/.test(name)) continue;
      keys++;
      if (name === 'ALL') this.all = true;
      else this.names.add(name);
      if (name === 'CUSTOM') custom = true;
    }
    if (keys === 0) return false;
    this.enabled = true;
    return true;
  }

  remove(words: string[]): boolean {
    let custom = false;
    let keys = 0;
    for (const w of words.filter(Boolean)) {
      if (custom) {
        this.subclasses.delete(w);
        continue;
      }
      const name = w.toUpperCase();
      keys++;
      if (name === 'ALL') {
        this.all = false;
        this.names.clear();
      } else if (name === 'CUSTOM') custom = true;
      else this.names.delete(name);
    }
    return keys > 0;
  }

  clear(): boolean {
    const was = this.enabled;
    this.enabled = false;
    this.all = false;
    this.names.clear();
    this.subclasses.clear();
    return was;
  }

  /** `filter <Header> <value>`, `filter delete <Header> [value]`, `filter delete all`. */
  filter(args: string[]): string {
    const [first, ...rest] = args;
    if (first?.toLowerCase() === 'delete' && rest.length > 0) {
      const [name = '', ...v] = rest;
      const value = v.join(' ');
      if (name.toLowerCase() === 'all') this.filters.length = 0;
      else {
        for (let i = this.filters.length - 1; i >= 0; i--) {
          const f = this.filters[i]!;
          if (f.header.toLowerCase() === name.toLowerCase() && (!value || f.raw === value))
            this.filters.splice(i, 1);
        }
      }
      return `+OK filter deleted. [${name}][${value || '(null)'}]`;
    }
    const [name, ...v] = first?.toLowerCase() === 'add' ? rest : args;
    if (!name || v.length === 0) return '-ERR invalid syntax';
    const value = v.join(' ');
    this.filters.push(parseFilter(name, value));
    return `+OK filter added. [${name}]=[${value}]`;
  }

  /** Whether events of this name are subscribed to (before the subclass and header filters). */
  hears(name: string): boolean {
    return this.enabled && (this.all || this.names.has(name));
  }

  wants(ev: FsEvent): boolean {
    if (!this.enabled) return false;
    if (!this.all) {
      if (!this.names.has(ev.name)) return false;
      if (ev.name === 'CUSTOM') {
        const sub = header(ev, 'Event-Subclass');
        if (sub && !this.subclasses.has(sub)) return false;
      }
    }
    return this.filters.length === 0 || passesFilters(ev, this.filters);
  }
}

/** A `filter` line as added, its sign and comparison worked out once. */
interface EventFilter {
  readonly header: string;
  /** The value as given (what `filter delete` names). */
  readonly raw: string;
  /** Whether a match lets the event through (`+` or no sign) or keeps it out (`-`). */
  readonly positive: boolean;
  readonly matches: (value: string) => boolean;
}

/**
 * A filter by FreeSWITCH's reading (mod_event_socket): the `+`, `-` and spaces before the value
 * give its sign (the last sign counts); a value that begins with `/` (a sign first makes it a
 * plain value) is a regular expression, `/pattern/flags`, with the flags FreeSWITCH's regex
 * wrapper reads (`i`, `s`); any other value compares without regard to case.
 */
function parseFilter(header: string, raw: string): EventFilter {
  let positive = true;
  let i = 0;
  for (; i < raw.length; i++) {
    const c = raw[i];
    if (c === '+') positive = true;
    else if (c === '-') positive = false;
    else if (c !== ' ') break;
  }
  const value = raw.slice(i).toLowerCase();
  const regex = raw.startsWith('/') ? compileRegex(raw) : undefined;
  const matches = regex
    ? (v: string): boolean => regex.test(v)
    : (v: string): boolean => v.toLowerCase() === value;
  return { header, raw, positive, matches };
}

/** Matches nothing: what a regex FreeSWITCH cannot compile matches. */
const NO_MATCH = /(?!)/;

/** `/pattern/flags`; one without its closing slash, or broken, matches nothing. */
function compileRegex(raw: string): RegExp {
  const end = raw.lastIndexOf('/');
  if (end < 1) return NO_MATCH;
  const flags = [...raw.slice(end + 1)].filter((f) => f === 'i' || f === 's').join('');
  try {
    return new RegExp(raw.slice(1, end), flags);
  } catch {
    return NO_MATCH;
  }
}

/**
 * FreeSWITCH's rule for a listener's filters: they are tried in the order they were added, each
 * only on an event that has its header. An event passes when a positive filter matches it and
 * no negative one does, whatever matched before the negative one.
 */
function passesFilters(ev: FsEvent, filters: readonly EventFilter[]): boolean {
  let send = false;
  for (const filter of filters) {
    if (send && filter.positive) continue;
    const v = header(ev, filter.header);
    if (v === undefined || !filter.matches(v)) continue;
    if (!filter.positive) return false;
    send = true;
  }
  return send;
}
