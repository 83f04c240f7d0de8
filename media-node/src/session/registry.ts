import type { NodeContext, NodeSessions } from '../context.js';
import type { Session } from './session.js';

/**
 * The node context with its session registry, for the parts that look sessions up and act on
 * them (commands, admission, resync, rooms): NodeContext cannot name Session, which holds it.
 */
export interface NodeWithSessions extends NodeContext {
  readonly sessions: SessionRegistry;
}

/** The sessions this node owns, by session id. */
export class SessionRegistry implements NodeSessions {
  private readonly sessions = new Map<string, Session>();
  private readonly listeners = new Set<(size: number) => void>();

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  all(): Session[] {
    return [...this.sessions.values()];
  }

  add(session: Session): void {
    this.sessions.set(session.id, session);
    this.changed();
  }

  remove(session: { readonly id: string }): void {
    if (this.sessions.get(session.id) !== session) return;
    this.sessions.delete(session.id);
    this.changed();
  }

  /** Called with the new size after every change (metrics, drain). */
  onChange(listener: (size: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of this.listeners) listener(this.sessions.size);
  }
}
