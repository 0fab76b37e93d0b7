// A copy of something read from a database that changes rarely, shared by every caller for
// `ttlMs` (the zones reports may be read in, asked by every report request): one read per window
// per process, and after a failed read the next caller reads again.

export interface ExpiringCopy<T> {
  /** The copy, read afresh when there is none younger than ttlMs. */
  get(now?: number): Promise<T>;
  /** What the current copy holds, once read; undefined when there is none younger than ttlMs. */
  known(now?: number): T | undefined;
  /** Drops the copy, so the next get reads afresh (a change this process made, tests). */
  forget(): void;
}

export function expiringCopy<T>(ttlMs: number, load: () => Promise<T>): ExpiringCopy<T> {
  let current: { at: number; value: Promise<T>; read?: T } | null = null;
  const fresh = (now: number) => (current && now - current.at < ttlMs ? current : null);
  return {
    get(now = Date.now()) {
      const kept = fresh(now);
      if (kept) return kept.value;
      const entry: { at: number; value: Promise<T>; read?: T } = { at: now, value: load() };
      entry.value.then(
        (read) => {
          entry.read = read;
        },
        () => {
          if (current === entry) current = null;
        },
      );
      current = entry;
      return entry.value;
    },
    known: (now = Date.now()) => fresh(now)?.read,
    forget() {
      current = null;
    },
  };
}
