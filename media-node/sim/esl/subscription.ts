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
    if (this.filters.length === 0) return true;
    return this.filters.some(([name, value]) => {
      const v = header(ev, name);
      if (v === undefined) return false;
      if (value.startsWith('/') && value.endsWith('/') && value.length > 1) {
        try {
          return new RegExp(value.slice(1, -1)).test(v);
        } catch {
          return false;
        }
      }
      return v === value;
    });
  }
}
