/** DIDs whose app the node remembers at most; the one learned longest ago goes first. */
const MAX_DIDS = 10_000;

/**
 * The DID map (DID → app) as this node last read it, so that an inbound call is admitted in
 * one round trip. Only a hint: admitInbound-5.lua checks the route against the map and answers
 * the current one when it changed, so a stale entry costs a second round trip, never a call
 * taken for the wrong app.
 */
export class DidRoutes {
  private readonly apps = new Map<string, string>();

  get(did: string): string | undefined {
    return this.apps.get(did);
  }

  /** What the map says now; `undefined` when the DID routes nowhere. */
  learn(did: string, appId: string | undefined): void {
    this.apps.delete(did);
    if (appId === undefined) return;
    this.apps.set(did, appId);
    if (this.apps.size > MAX_DIDS) {
      const oldest = this.apps.keys().next();
      if (!oldest.done) this.apps.delete(oldest.value);
    }
  }
}
