// What a listener asked to receive: event names (or ALL), CUSTOM subclasses, and filters.
import { header, type FsEvent } from './event.js';

export class EventSubscription {
  private enabled = false;
  private all = false;
  private readonly names = new Set<string>();
  private readonly subclasses = new Set<string>();
  private readonly filters: Array<[string, string]> = [];

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
          if (f[0].toLowerCase() === name.toLowerCase() && (!value || f[1] === value))
            this.filters.splice(i, 1);
        }
      }
      return `+OK filter deleted. [${name}][${value || '(null)'}]`;
    }
    const [name, ...v] = first?.toLowerCase() === 'add' ? rest : args;
    if (!name || v.length === 0) return '-ERR invalid syntax';
    const value = v.join(' ');
    this.filters.push([name, value]);
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

/**
 * FreeSWITCH's rule for a listener's filters (mod_event_socket's event handler): they are tried
 * in the order they were added, each only on an event that has its header. A value led by `+`
 * (or by nothing) lets a matching event through; one led by `-` keeps a matching event out,
 * whatever matched before it. Values compare without regard to case; a value that begins with
 * `/` (a sign first makes it a plain value) is a regular expression.
 */
function passesFilters(ev: FsEvent, filters: ReadonlyArray<readonly [string, string]>): boolean {
  let send = false;
  for (const [name, raw] of filters) {
    const v = header(ev, name);
    if (v === undefined) continue;
    const { positive, value } = filterValue(raw);
    if (send && positive) continue;
    const matched = raw.startsWith('/')
      ? matchesRegex(v, raw)
      : v.toLowerCase() === value.toLowerCase();
    if (!matched) continue;
    if (!positive) return false;
    send = true;
  }
  return send;
}

/** The sign of a filter value (`+`, `-` and spaces before it; the last sign counts) and the rest. */
function filterValue(raw: string): { positive: boolean; value: string } {
  let positive = true;
  let i = 0;
  for (; i < raw.length; i++) {
    const c = raw[i];
    if (c === '+') positive = true;
    else if (c === '-') positive = false;
    else if (c !== ' ') break;
  }
  return { positive, value: raw.slice(i) };
}

/** `/pattern/flags`, with the flags FreeSWITCH's regex wrapper reads (`i`, `s`). */
function matchesRegex(v: string, regex: string): boolean {
  const end = regex.lastIndexOf('/');
  if (end < 1) return false;
  const flags = [...regex.slice(end + 1)].filter((f) => f === 'i' || f === 's').join('');
  try {
    return new RegExp(regex.slice(1, end), flags).test(v);
  } catch {
    return false;
  }
}
