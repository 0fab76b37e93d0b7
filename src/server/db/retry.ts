// Writers take their locks in a fixed order, so deadlocks should not happen; should Postgres
// still report one (or a serialisation failure), the work is tried once more before its callers
// get a 503.
const RETRYABLE = new Set(["40001", "40P01"]);

export async function retryOnceOnConflict<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (RETRYABLE.has((error as { code?: string }).code ?? "")) return work();
    throw error;
  }
}
