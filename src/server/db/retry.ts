// Writers take their locks in a fixed order, so deadlocks should not happen; should Postgres
// still report one (or a serialisation failure), the work is tried again before its callers
// get a 503.
const RETRYABLE = new Set(["40001", "40P01"]);

/** `work`, tried up to `attempts` times in all while Postgres rolls it back as a deadlock or a serialisation failure. */
export async function retryOnConflict<T>(work: () => Promise<T>, attempts: number): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !RETRYABLE.has((error as { code?: string }).code ?? "")) throw error;
    }
  }
}

export const retryOnceOnConflict = <T>(work: () => Promise<T>): Promise<T> => retryOnConflict(work, 2);
