// Group commit: callers each submit one item and get their own answer, but items are written in
// groups, one statement (and one commit) per group. No timer holds an item back: a group leaves as
// soon as the event loop has gathered what arrived in the same turn, and while `maxInFlight`
// groups are being written the next group keeps growing. Under light load that is a group of one
// per request (no added latency); under heavy load, large groups and few commits. PostgreSQL does
// the same with WAL flushes; Kafka producers and DataLoader batch the same way.
export interface GroupCommitOptions {
  /** Most items written by one call of `write`. */
  maxGroupSize: number;
  /** Most `write` calls outstanding at once. */
  maxInFlight: number;
}

interface Pending<I, O> {
  item: I;
  resolve(value: O): void;
  reject(error: unknown): void;
}

export class GroupCommit<I, O> {
  private queue: Pending<I, O>[] = [];
  private inFlight = 0;
  private scheduled = false;

  /**
   * `write` receives a group and answers one result per item, in order. If it throws, every item
   * of that group is rejected with the error (each caller sees its own failure); other groups are
   * unaffected.
   */
  constructor(
    private readonly write: (items: I[]) => Promise<O[]>,
    private readonly options: GroupCommitOptions,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.options.maxInFlight) return;
    this.scheduled = true;
    // After this turn's I/O callbacks, so requests that arrived together leave together.
    setImmediate(() => {
      this.scheduled = false;
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0 && this.inFlight < this.options.maxInFlight) {
      const group = this.queue.splice(0, this.options.maxGroupSize);
      this.inFlight += 1;
      void this.writeGroup(group).finally(() => {
        this.inFlight -= 1;
        if (this.queue.length > 0) this.schedule();
      });
    }
  }

  private async writeGroup(group: Pending<I, O>[]): Promise<void> {
    let results: O[];
    try {
      results = await this.write(group.map((p) => p.item));
      if (results.length !== group.length)
        throw new Error(`group commit: ${results.length} results for ${group.length} items`);
    } catch (error) {
      for (const pending of group) pending.reject(error);
      return;
    }
    group.forEach((pending, index) => pending.resolve(results[index] as O));
  }
}
