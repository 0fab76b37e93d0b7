// How often one beacon address (a token: one kind of one served ad) and one session may bring a
// beacon, per hour, in each events process: a token replayed thousands of times, or a session
// sending without end, is answered 429 instead of filling the log and ad_events with duplicates
// nobody will count. Kept in memory because the check sits on the hot path of every beacon
// (no database round trip); each process counts its own traffic, so a source spread over N events
// processes gets at most N times the allowance (docs/operations.md, "Caps and limits"). Settling
// then decides, exactly and across processes, what is counted (duplicates, token reuse).

/** Counts per key in fixed windows; at most `maxKeys` keys, the oldest forgotten first. */
export class WindowCounts {
  private readonly counts = new Map<string, { window: number; count: number }>();

  constructor(
    private readonly windowMs: number,
    private readonly maxKeys: number,
  ) {}

  /**
   * Counts one for `key` at `now` and says whether it is within `allowance` for the window; when
   * it is not, nothing is counted, and `retryAfterSeconds` says when the window ends.
   */
  take(key: string, allowance: number, now: number): { ok: true } | { ok: false; retryAfterSeconds: number } {
    const window = Math.floor(now / this.windowMs);
    const entry = this.counts.get(key);
    if (entry && entry.window === window) {
      if (entry.count >= allowance) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(((window + 1) * this.windowMs - now) / 1000)) };
      entry.count += 1;
      return { ok: true };
    }
    if (entry) {
      entry.window = window;
      entry.count = 1;
      return { ok: true };
    }
    if (this.counts.size >= this.maxKeys) this.makeRoom(window);
    this.counts.set(key, { window, count: 1 });
    return { ok: true };
  }

  /** Keys counted (tests). */
  get size(): number {
    return this.counts.size;
  }

  // Keys of past windows go first (their counts no longer matter); if that frees less than a
  // tenth, the keys first seen longest ago go (a Map iterates in insertion order), a tenth at a
  // time: a flood of new keys never wipes every count at once.
  private makeRoom(window: number): void {
    for (const [key, entry] of this.counts) if (entry.window !== window) this.counts.delete(key);
    let drop = this.counts.size - Math.floor(this.maxKeys * 0.9);
    for (const key of this.counts.keys()) {
      if (drop-- <= 0) break;
      this.counts.delete(key);
    }
  }
}

const HOUR_MS = 3_600_000;
/** Keys each process remembers per allowance: about 100 bytes each, a few tens of MB at most. */
export const ALLOWANCE_KEYS = 200_000;

const holder = globalThis as unknown as { tallyBeaconAllowances?: { tokens: WindowCounts; sessions: WindowCounts } };

/** This process's hourly counts of beacons per token and per session. */
export function beaconAllowances(): { tokens: WindowCounts; sessions: WindowCounts } {
  holder.tallyBeaconAllowances ??= { tokens: new WindowCounts(HOUR_MS, ALLOWANCE_KEYS), sessions: new WindowCounts(HOUR_MS, ALLOWANCE_KEYS) };
  return holder.tallyBeaconAllowances;
}

/** Forgets every count (tests change the allowances). */
export function resetBeaconAllowances(): void {
  holder.tallyBeaconAllowances = undefined;
}
