// rate-limiter-flexible's Postgres store (the table rate_limits) on the request pool. Limits that
// must add up across every process (sign-in guesses, report requests) count here, not in memory.
import pg from "pg";
import { RateLimiterPostgres } from "rate-limiter-flexible";
import { pgPool } from "./pg-pool";

// The library reads its BIGINT expiry as pg's default text, where Tally's pool parses BIGINT to
// bigint: its queries go through the same pool with pg's default parsers.
const rateLimitStore = {
  query: (query: pg.QueryConfig) => pgPool().query({ ...query, types: pg.types }),
};

/**
 * A limiter of `points` a `duration` (seconds) per key, under `keyPrefix`, counted in rate_limits.
 * `blockInMemory`: once a key's window is spent, this process refuses it from memory for the rest
 * of the window, without a query.
 */
export function postgresRateLimiter(options: { points: number; duration: number; keyPrefix: string; blockInMemory?: boolean }): RateLimiterPostgres {
  return new RateLimiterPostgres({
    storeClient: rateLimitStore,
    storeType: "pool",
    tableName: "rate_limits",
    tableCreated: true,
    clearExpiredByTimeout: true,
    keyPrefix: options.keyPrefix,
    points: options.points,
    duration: options.duration,
    ...(options.blockInMemory ? { inMemoryBlockOnConsumed: options.points } : {}),
  });
}
