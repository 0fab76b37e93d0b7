// How often one beacon address (a token: one kind of one served ad) and one session may bring a
// beacon, per hour, in each events process: a token replayed thousands of times, or a session
// sending without end, is answered 429 instead of filling the log and ad_events with duplicates
// nobody will count. Kept in memory because the check sits on the hot path of every beacon
// (no database round trip); each process counts its own traffic, so a source spread over N events
// processes gets at most N times the allowance (docs/operations.md, "Caps and limits"). Settling
// then decides, exactly and across processes, what is counted (duplicates, token reuse).

/**
 * Counts per key in fixed windows, at most `maxKeys` keys. Two generations of plain counts: new
 * keys go into the current one; when it holds half the keys, the older generation is forgotten
 * whole and the current one becomes the older. A key still sending is carried into the current
 * generation by its next count, so only keys quiet for a generation are forgotten, and a flood of
 * new keys never wipes every count at once. No object is made per key and nothing is ever
 * scanned: nearly every beacon brings a token never seen before, so this sits on the hot path.
 */
export class WindowCounts {
  private current = new Map<string, number>();
  private older = new Map<string, number>();
  private window = Number.NaN;
  private readonly generationKeys: number;

  constructor(
    private readonly windowMs: number,
    maxKeys: number,
  ) {
    this.generationKeys = Math.max(1, Math.floor(maxKeys / 2));
  }

  /**
   * Counts one for `key` at `now` and says whether it is within `allowance` for the window; when
   * it is not, nothing is counted, and `retryAfterSeconds` says when the window ends.
   */
  take(key: string, allowance: number, now: number): { ok: true } | { ok: false; retryAfterSeconds: number } {
    const window = Math.floor(now / this.windowMs);
    if (window !== this.window) {
      this.window = window;
      this.current = new Map();
      this.older = new Map();
    }
    const count = this.current.get(key) ?? this.older.get(key) ?? 0;
    if (count >= allowance) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(((window + 1) * this.windowMs - now) / 1000)) };
    if (this.current.size >= this.generationKeys && !this.current.has(key)) {
      this.older = this.current;
      this.current = new Map();
    }
    this.current.set(key, count + 1);
    return ALLOWED;
  }

  /** Keys counted (tests). */
  get size(): number {
    let size = this.current.size;
    for (const key of this.older.keys()) if (!this.current.has(key)) size += 1;
    return size;
  }
}

const ALLOWED = { ok: true } as const;

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
