// Group commit: requests that arrive while the database is busy are stored together in the next
// transaction, and each request is answered only when the transaction holding it has committed.
// At low load a batch holds one item (no added delay); under load batches grow, and throughput
// with them, up to `maxBatch` items and `maxInFlight` concurrent transactions.
//
// Two promises to the requests that share a batch:
// - A bad item never takes good ones with it. When a batch fails on a data error (the item's
//   values, not the database's health: SQLSTATE class 22 or 23), it is split in halves and each
//   half committed again, until the item that fails stands alone; that one item is rejected with
//   a `RejectedItem`, and every other item is committed and answered. Halves commit in order, so
//   an earlier item still sees itself stored before a later one (de-duplication stays the same).
// - The queue has a ceiling. Past `maxQueuedWeight` (items, or bytes when the caller weighs them)
//   a submit is refused at once with `QueueFull`, so a flood costs memory up to the ceiling and
//   is answered 503 with Retry-After instead of growing without limit.

import { TallyError } from "@/server/errors";

interface Pending<I, O> {
  item: I;
  weight: number;
  resolve: (result: O) => void;
  reject: (error: unknown) => void;
}

export interface GroupCommitOptions {
  maxBatch: number;
  maxInFlight: number;
  /** The most weight (see submit) waiting for a transaction; past it a submit is refused. */
  maxQueuedWeight: number;
}

/** The queue is at its ceiling: the caller answers 503 and the client retries later. */
export class QueueFull extends Error {
  constructor() {
    super("the write queue is full");
    this.name = "QueueFull";
  }
}

/** This item alone made its batch fail on a data error; the cause is Postgres's error. */
export class RejectedItem extends Error {
  constructor(override readonly cause: unknown) {
    super(`the item cannot be stored: ${(cause as Error | undefined)?.message ?? String(cause)}`);
    this.name = "RejectedItem";
  }
}

/** SQLSTATE class 22 (data exception) or 23 (integrity constraint violation): the data is at fault. */
export function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && code.length === 5 && (code.startsWith("22") || code.startsWith("23"));
}

export class GroupCommit<I, O> {
  private queue: Pending<I, O>[] = [];
  private queuedWeight = 0;
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly flush: (items: I[]) => Promise<O[]>,
    private readonly options: GroupCommitOptions,
  ) {}

  /** How much weight waits for a transaction now (for metrics and tests). */
  get depth(): number {
    return this.queuedWeight;
  }

  /**
   * Resolves with the item's result once its transaction committed. Rejects with QueueFull when
   * the queue is at its ceiling, RejectedItem when this item's data cannot be stored, or the
   * database's error when the batch could not be committed at all.
   */
  submit(item: I, weight = 1): Promise<O> {
    if (this.queuedWeight + weight > this.options.maxQueuedWeight && this.queue.length > 0) {
      return Promise.reject(new QueueFull());
    }
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, weight, resolve, reject });
      this.queuedWeight += weight;
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
      for (const pending of batch) this.queuedWeight -= pending.weight;
      this.inFlight += 1;
      this.commit(batch).finally(() => {
        this.inFlight -= 1;
        if (this.queue.length > 0) this.schedule();
      });
    }
  }

  /** Commits a batch, splitting it around items whose data fails; never rejects. */
  private async commit(batch: Pending<I, O>[]): Promise<void> {
    let results: O[];
    try {
      results = await this.flush(batch.map((pending) => pending.item));
    } catch (error) {
      if (!isDataError(error)) {
        for (const pending of batch) pending.reject(error);
        return;
      }
      if (batch.length === 1) {
        batch[0]!.reject(new RejectedItem(error));
        return;
      }
      const half = Math.ceil(batch.length / 2);
      await this.commit(batch.slice(0, half));
      await this.commit(batch.slice(half));
      return;
    }
    for (const [i, pending] of batch.entries()) pending.resolve(results[i]!);
  }
}

/** How a group commit's refusal reaches the client: shared by the beacon and conversion intakes. */
export function refusalOf(error: unknown, what: string): TallyError {
  if (error instanceof QueueFull) {
    return new TallyError("unavailable", `Tally is receiving more than it can store right now; retry the ${what} shortly`, {
      cause: error,
      retryAfterSeconds: 2,
    });
  }
  if (error instanceof RejectedItem) {
    const sqlstate = (error.cause as { code?: string } | undefined)?.code ?? null;
    return TallyError.validation([
      { instancePath: "", schemaPath: "#", keyword: "storable", params: { sqlstate }, message: `the ${what} holds a value that cannot be stored` },
    ]);
  }
  return new TallyError("unavailable", `the ${what} could not be stored; retry later`, { cause: error });
}
