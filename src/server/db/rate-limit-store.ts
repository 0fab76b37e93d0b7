// rate-limiter-flexible's Postgres store (the table rate_limits) on the request pool. Limits that
// must add up across every process (sign-in guesses, report requests) count here, not in memory.
import pg from "pg";
import { pgPool } from "./pg-pool";

// The library reads its BIGINT expiry as pg's default text, where Tally's pool parses BIGINT to
// bigint: its queries go through the same pool with pg's default parsers.
export const rateLimitStore = {
  query: (query: pg.QueryConfig) => pgPool().query({ ...query, types: pg.types }),
};
