// One file over 300 lines on purpose: the lease protocol (take, hand out, give back, expire) is one piece, and reads as one.
// Rate limits that every process shares, at no database round trip per request. Windows are fixed
// (aligned to the clock, so every process agrees on them); the count of a key's window lives in a
// shared store (Postgres: limit-windows.sql.ts). A process takes a share of the window (a lease)
// and hands it out from memory; when its share is spent it asks for more, for every key that needs
// some in one statement per turn of the event loop (as group-commit.ts batches writes); when the
// store has none left the key is refused from memory until the window ends, so a flood costs the
// database nothing more.
//
// How exact it is (docs/decisions/0011-shared-limits-via-postgres-leases.md):
// - The store never hands out more than a window's capacity, so leases alone admit at most the
//   limit across all processes.
// - Each process admits a key's first `capacity / 64` requests of a window before it asks (the
//   advance), and records them with its first lease. A key that never needs a lease costs the
//   database nothing, which is every shopper's address; the price is that the advances can go
//   past the limit: by at most one advance per process (capacity / 64 each), and one more each
//   time a process past `maxKeys` keys in a window starts its memory of the window over.
// - A lease a process holds and does not use before the window ends is lost to the others, so a
//   key whose traffic moves between processes can be refused a little before its limit; a flood
//   spread over every process uses every lease.
// - When the store fails or does not answer within `leaseTimeoutMs`, the process counts each key
//   against its whole capacity in memory until the window ends (per-process limits, as before
//   they were shared), then tries the store again.

/** One key's request for a share of a window. */
export interface LeaseAsk {
  windowStartMs: number;
  key: string;
  capacity: number;
  want: number;
}

/** Where the processes' counts are shared. */
export interface LeaseStore {
  /** Takes up to `want` of each key's window (never past its capacity); what each ask got, in order. */
  take(asks: LeaseAsk[]): Promise<number[]>;
  /** Forgets the windows that started before this one. */
  forgetBefore(windowStartMs: number): Promise<void>;
}

export interface SharedLimiterOptions {
  store: LeaseStore;
  /** Length of a window. */
  windowMs: number;
  /** The clock (tests move it). */
  now?: () => number;
  /** A lease that has not answered by then counts as failed. */
  leaseTimeoutMs?: number;
  /** Keys kept per window; past it the process starts the window's local state over (memory stays bounded). */
  maxKeys?: number;
  /** Each lease statement, as it ended: to count them (metrics) and to log failures. */
  onLease?: (outcome: "taken" | "failed", keys: number, error?: unknown) => void;
  /** What a process may admit of a key's window before it first asks (advanceOf unless said); a long window wants a smaller share. */
  advance?: (capacity: number) => number;
  /** The largest lease (maxLeaseOf unless said): what a process can hold unused, lost to the others if it ends. */
  maxLease?: (capacity: number) => number;
}

/** The share of a window a process may hand out before it first asks the store. */
export const advanceOf = (capacity: number) => Math.floor(capacity / 64);
/** The largest lease a process asks for at once: what it can hold unused stays a small part of the window. */
export const maxLeaseOf = (capacity: number) => Math.max(1, Math.floor(capacity / 16));

/** A request waiting for a lease, and its weight: answered with its verdict, or with another wait in a later window. */
interface Waiter {
  weight: number;
  answer: (admitted: boolean | Promise<boolean>) => void;
}

/**
 * One key in one window, in this process, once its advance is spent (until then the key is only a
 * count: SharedLimiter.states).
 */
class KeyState {
  /** Requests this process may still admit without asking. */
  tokens: number;
  /** Admitted on the advance and not yet recorded in the store. */
  owed: number;
  /** Admitted by this process in this window. */
  used: number;
  /** The size of the next lease, doubled after each. */
  nextLease: number;
  /** The store has no more of this window: refuse until it ends. */
  blocked = false;
  /** In the next lease statement, or in the one under way. */
  asking = false;
  /** Requests waiting for a lease (made when the first one waits: most keys never do). */
  waiters: Waiter[] | null = null;

  /** A key that has admitted `used` requests on its advance (or, counting in memory, of its capacity). */
  constructor(
    readonly key: string,
    readonly windowStartMs: number,
    readonly capacity: number,
    used: number,
    local: boolean,
    advance: number,
  ) {
    this.used = used;
    this.tokens = 0;
    this.owed = used;
    this.nextLease = Math.max(1, advance);
    if (local) this.goLocal();
  }

  /** Admits one waiter or refuses it; false when it must wait for another lease. */
  serve(waiter: Waiter): boolean {
    if (this.tokens >= waiter.weight) {
      this.tokens -= waiter.weight;
      this.used += waiter.weight;
      waiter.answer(true);
      return true;
    }
    if (this.blocked) {
      waiter.answer(false);
      return true;
    }
    return false;
  }

  /** What the waiting requests weigh together. */
  waiting(): number {
    let weight = 0;
    for (const waiter of this.waiters ?? []) weight += waiter.weight;
    return weight;
  }

  /** Counts the rest of the window in memory against the whole capacity (the store failed); a window the store said was spent stays so. */
  goLocal(): void {
    if (this.blocked) return;
    this.owed = 0;
    this.tokens = Math.max(0, this.capacity - this.used);
    // Nothing more will come this window: what the tokens cannot cover is refused.
    this.blocked = true;
  }
}

export class SharedLimiter {
  private readonly store: LeaseStore;
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly leaseTimeoutMs: number;
  private readonly maxKeys: number;
  private readonly onLease: SharedLimiterOptions["onLease"];
  private readonly advance: (capacity: number) => number;
  private readonly maxLease: (capacity: number) => number;
  /**
   * This window's keys: a plain count of the requests admitted while a key is within its advance
   * (or, counting in memory, its capacity), which most keys never leave, so that they cost no
   * object; a KeyState once it takes leases.
   */
  private states = new Map<string, number | KeyState>();
  private windowStartMs = Number.NEGATIVE_INFINITY;
  private windowEndMs = Number.NEGATIVE_INFINITY;
  /** The store failed in this window: every key counts in memory until it ends. */
  private local = false;
  /** A lease was taken in this window: its row is to be forgotten once the next one starts. */
  private wrote = false;
  private queue: KeyState[] = [];
  private scheduled = false;
  private inFlight = false;

  constructor(options: SharedLimiterOptions) {
    this.store = options.store;
    this.windowMs = options.windowMs;
    this.now = options.now ?? Date.now;
    this.leaseTimeoutMs = options.leaseTimeoutMs ?? 1000;
    this.maxKeys = options.maxKeys ?? 200_000;
    this.onLease = options.onLease;
    this.advance = options.advance ?? advanceOf;
    this.maxLease = options.maxLease ?? maxLeaseOf;
  }

  /**
   * One request for `key`, whose window admits `capacity` requests across every process: true
   * (admitted) or false (refused until the window ends), at once when this process can tell
   * from memory, which is nearly always, else once a lease answers. `weight`: what the request
   * spends of the capacity (1 a request; more where the capacity is bytes); one heavier than the
   * whole capacity is refused.
   */
  take(key: string, capacity: number, weight = 1): boolean | Promise<boolean> {
    const now = this.now();
    if (now >= this.windowEndMs) this.startWindow(now);
    if (weight > capacity) return false;
    const entry = this.states.get(key);
    if (entry === undefined || typeof entry === "number") {
      const used = entry ?? 0;
      if (used + weight <= (this.local ? capacity : this.advance(capacity))) {
        if (entry === undefined && this.states.size >= this.maxKeys) this.states.clear();
        this.states.set(key, used + weight);
        return true;
      }
      const state = new KeyState(key, this.windowStartMs, capacity, used, this.local, this.advance(capacity));
      this.states.set(key, state);
      return this.takeFrom(state, weight);
    }
    return this.takeFrom(entry, weight);
  }

  private takeFrom(state: KeyState, weight: number): boolean | Promise<boolean> {
    if (state.tokens >= weight) {
      state.tokens -= weight;
      state.used += weight;
      return true;
    }
    if (state.blocked) return false;
    if (this.local) {
      state.goLocal();
      return this.takeFrom(state, weight);
    }
    return new Promise<boolean>((answer) => {
      if (state.waiters === null) state.waiters = [{ weight, answer }];
      else state.waiters.push({ weight, answer });
      this.ask(state);
    });
  }

  /** Requests for `key` this process admitted in the current window. */
  usedHere(key: string): number {
    if (this.now() >= this.windowEndMs) return 0;
    const entry = this.states.get(key);
    return entry === undefined ? 0 : typeof entry === "number" ? entry : entry.used;
  }

  /** Whole seconds until the current window ends, at least 1: a refusal's Retry-After. */
  retryAfterSeconds(): number {
    return Math.max(1, Math.ceil((this.windowEndMs - this.now()) / 1000));
  }

  private startWindow(now: number): void {
    this.windowStartMs = Math.floor(now / this.windowMs) * this.windowMs;
    this.windowEndMs = this.windowStartMs + this.windowMs;
    this.states = new Map();
    this.local = false;
    if (this.wrote) {
      // The previous window's rows may still be taken from by a process whose clock is behind; older ones not.
      this.wrote = false;
      void this.store.forgetBefore(this.windowStartMs - this.windowMs).catch(() => {});
    }
  }

  private ask(state: KeyState): void {
    if (state.asking) return;
    state.asking = true;
    this.queue.push(state);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight) return;
    this.scheduled = true;
    // setImmediate: every key that ran out in this turn of the event loop goes in one statement.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    // One statement at a time: the one under way schedules the next when it ends.
    if (this.inFlight) return;
    const now = this.now();
    if (now >= this.windowEndMs) this.startWindow(now);
    const batch: KeyState[] = [];
    const later: KeyState[] = [];
    const seen = new Set<string>();
    for (const state of this.queue) {
      if (state.windowStartMs !== this.windowStartMs) {
        // Its window ended while it waited: its requests count in the window that has begun.
        state.asking = false;
        const waiters = state.waiters ?? [];
        state.waiters = null;
        for (const waiter of waiters) waiter.answer(this.take(state.key, state.capacity, waiter.weight));
        continue;
      }
      if (this.local) {
        state.asking = false;
        state.goLocal();
        this.serveWaiters(state);
        continue;
      }
      // One row of a window at most once per statement (a key started over past maxKeys can be queued twice).
      if (seen.has(state.key)) later.push(state);
      else {
        seen.add(state.key);
        batch.push(state);
      }
    }
    this.queue = later;
    if (batch.length === 0) return;
    const asks = batch.map(
      (state): LeaseAsk => ({
        windowStartMs: state.windowStartMs,
        key: state.key,
        capacity: state.capacity,
        want: Math.min(state.capacity, state.owed + Math.max(state.waiting(), state.nextLease)),
      }),
    );
    this.inFlight = true;
    this.wrote = true;
    let granted: number[] | null = null;
    try {
      granted = await this.withinTimeout(this.store.take(asks));
      this.onLease?.("taken", asks.length);
    } catch (error) {
      this.onLease?.("failed", asks.length, error);
      if (batch[0]!.windowStartMs === this.windowStartMs) this.local = true;
    }
    this.inFlight = false;
    batch.forEach((state, i) => {
      state.asking = false;
      if (granted === null) state.goLocal();
      else this.lease(state, asks[i]!.want, granted[i]!);
      this.serveWaiters(state);
    });
    if (this.queue.length > 0) this.schedule();
  }

  private lease(state: KeyState, asked: number, got: number): void {
    state.tokens += Math.max(0, got - state.owed);
    state.owed = 0;
    if (got < asked) state.blocked = true;
    state.nextLease = Math.min(state.nextLease * 2, this.maxLease(state.capacity));
  }

  private serveWaiters(state: KeyState): void {
    const waiters = state.waiters ?? [];
    const still: Waiter[] = [];
    for (const waiter of waiters) if (!state.serve(waiter)) still.push(waiter);
    state.waiters = still.length > 0 ? still : null;
    if (still.length > 0) this.ask(state);
  }

  private withinTimeout<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the shared limits did not answer within ${this.leaseTimeoutMs} ms`)), this.leaseTimeoutMs);
    });
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  }
}
