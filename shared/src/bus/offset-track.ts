/**
 * One Kafka partition's offsets between fetch and commit: events are acknowledged in any order
 * (different apps finish at different times), but the committed offset only moves past an
 * offset once it and everything before it are acknowledged.
 */
export class OffsetTrack {
  /** Set while the partition is paused because too much of it is unacknowledged. */
  paused = false;
  /** Handed-over offsets, ascending, not yet below the floor. */
  private readonly held: bigint[] = [];
  private readonly heldSet = new Set<bigint>();
  private readonly acked = new Set<bigint>();
  /** Every offset below it is acknowledged: the offset to commit. */
  private floor: bigint | undefined;
  private committed: bigint | undefined;

  /** Records a fetched offset; false when it is already held or acknowledged (a re-fetch). */
  add(offset: string): boolean {
    const value = BigInt(offset);
    if (this.floor !== undefined && value < this.floor) return false;
    if (this.heldSet.has(value)) return false;
    this.held.push(value);
    this.heldSet.add(value);
    return true;
  }

  /** Acknowledges an offset; true when the commit floor moved. */
  done(offset: string): boolean {
    const value = BigInt(offset);
    if (!this.heldSet.has(value)) return false;
    this.acked.add(value);
    let moved = false;
    while (this.held.length > 0 && this.acked.has(this.held[0] ?? -1n)) {
      const head = this.held.shift() ?? 0n;
      this.heldSet.delete(head);
      this.acked.delete(head);
      this.floor = head + 1n;
      moved = true;
    }
    return moved;
  }

  /** Events handed over and not acknowledged. */
  get outstanding(): number {
    return this.held.length - this.acked.size;
  }

  /** The offset to commit now, if it moved since the last commit. */
  takeCommit(): string | undefined {
    if (this.floor === undefined || this.floor === this.committed) return undefined;
    this.committed = this.floor;
    return this.floor.toString();
  }
}
