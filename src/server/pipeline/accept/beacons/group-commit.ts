// Group commit: requests that arrive while the database is busy are stored together in the next
// transaction, and each request is answered only when the transaction holding it has committed.
// At low load a batch holds one item (no added delay); under load batches grow, and throughput
// with them, up to `maxBatch` items and `maxInFlight` concurrent transactions.
//
// Three promises to the requests that share a batch:
// - A bad item never takes good ones with it. When a batch fails for anything but the database's
//   health (src/server/db/failures.ts: a data error, a statement past its timeout, a RangeError
//   while building the statement), it is split in halves and each half committed again, until the
//   item that fails stands alone. That item is rejected: with a `RejectedItem` (422) when its data
//   is at fault, else with the error (503: nothing stored, the client sends it again), and every
//   other item is committed and answered. Halves commit in order, so an earlier item still sees
//   itself stored before a later one (de-duplication stays the same).
// - A batch is bounded in weight as well as items (`maxBatchWeight`: bytes, when the caller weighs
//   its items by their size), so one statement never carries more than that.
// - The queue has a ceiling. Past `maxQueuedWeight` (items, or bytes when the caller weighs them)
//   a submit is refused at once with `QueueFull`, so a flood costs memory up to the ceiling and
//   is answered 503 with Retry-After instead of growing without limit.

import { TallyError } from "@/server/core/errors";
import { isDataError, isTransientFailure } from "@/server/db/failures";

interface Pending<I, O> {
  item: I;
  weight: number;
  resolve: (result: O) => void;
  reject: (error: unknown) => void;
}

export interface GroupCommitOptions {
  maxBatch: number;
  /** The most weight one batch carries (at least one item, whatever its weight); unbounded when left out. */
  maxBatchWeight?: number;
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

/** This item alone made its batch fail on its data; the cause is Postgres's error. */
export class RejectedItem extends Error {
  constructor(override readonly cause: unknown) {
    super(`the item cannot be stored: ${(cause as Error | undefined)?.message ?? String(cause)}`);
    this.name = "RejectedItem";
  }
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
      const batch = this.queue.splice(0, this.batchLength());
      for (const pending of batch) this.queuedWeight -= pending.weight;
      this.inFlight += 1;
      this.commit(batch).finally(() => {
        this.inFlight -= 1;
        if (this.queue.length > 0) this.schedule();
      });
    }
  }

  /** How many of the waiting items the next batch takes: up to maxBatch, and maxBatchWeight. */
  private batchLength(): number {
    const { maxBatch, maxBatchWeight = Number.POSITIVE_INFINITY } = this.options;
    let weight = 0;
    let length = 0;
    for (const pending of this.queue) {
      if (length === maxBatch || (length > 0 && weight + pending.weight > maxBatchWeight)) break;
      weight += pending.weight;
      length += 1;
    }
    return length;
  }

  /** Commits a batch, splitting it around the items that fail; never rejects. */
  private async commit(batch: Pending<I, O>[]): Promise<void> {
    let results: O[];
    try {
      results = await this.flush(batch.map((pending) => pending.item));
    } catch (error) {
      if (isTransientFailure(error)) {
        for (const pending of batch) pending.reject(error);
        return;
      }
      if (batch.length === 1) {
        batch[0]!.reject(isDataError(error) ? new RejectedItem(error) : error);
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
