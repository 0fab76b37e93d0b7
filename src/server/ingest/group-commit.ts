// Group commit: requests that arrive while the database is busy are stored together in the next
// transaction, and each request is answered only when the transaction holding it has committed.
// At low load a batch holds one item (no added delay); under load batches grow, and throughput
// with them, up to `maxBatch` items and `maxInFlight` concurrent transactions.

interface Pending<I, O> {
  item: I;
  resolve: (result: O) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit<I, O> {
  private queue: Pending<I, O>[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly flush: (items: I[]) => Promise<O[]>,
    private readonly options: { maxBatch: number; maxInFlight: number } = { maxBatch: 500, maxInFlight: 4 },
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
    // setImmediate: collect every request that arrived in this turn of the event loop.
    setImmediate(() => {
      this.scheduled = false;
      this.drain();
    });
  }

  private drain(): void {
    while (this.queue.length > 0 && this.inFlight < this.options.maxInFlight) {
      const batch = this.queue.splice(0, this.options.maxBatch);
      this.inFlight += 1;
      this.flush(batch.map((pending) => pending.item))
        .then((results) => batch.forEach((pending, i) => pending.resolve(results[i]!)))
        .catch((error: unknown) => batch.forEach((pending) => pending.reject(error)))
        .finally(() => {
          this.inFlight -= 1;
          if (this.queue.length > 0) this.schedule();
        });
    }
  }
}
