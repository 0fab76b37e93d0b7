// Plain `pg` pools. The request pool serves the hot paths (beacon intake, ad query, attribution,
// reports' pages), where going through Prisma's adapter would cost more per request than the
// query itself; ordinary queries use `db` (client.ts), whose pool has the same limits. The bulk
// pool serves what reads many rows for a long time (report downloads, export batches, rollup
// repairs): a few slow readers queue among themselves there and never take the connections that
// a 202 waits for.
import pg from "pg";
import { env } from "@/env";
import { logger } from "@/server/core/log";

const holder = globalThis as unknown as { tallyPgPool?: pg.Pool; tallyBulkPool?: pg.Pool };

const BIGINT_OID = 20;

// BIGINT as JS bigint in these pools only (Prisma's adapter shares the pg module and expects
// strings): money in micro-units must never pass through a float.
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === BIGINT_OID ? (value: string) => BigInt(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * Server-side limits every connection starts with (sent at connect, so they hold for every
 * statement on it): no statement runs longer than `statement_timeout`, and a transaction left
 * open by a stalled or crashed caller is ended by Postgres after `idle_in_transaction_session_timeout`,
 * releasing its locks, instead of blocking the writers that need them.
 */
/** A connection taken from one of the pools, for work that must stay on one connection. */
export type DbConnection = pg.PoolClient;

export interface ConnectionLimits {
  statement_timeout: number;
  idle_in_transaction_session_timeout: number;
}

/** Requests and jobs: each statement is a batch of at most a few thousand rows. */
export function requestConnectionLimits(): ConnectionLimits {
  const { DATABASE_STATEMENT_TIMEOUT_SECONDS: seconds } = env();
  return { statement_timeout: seconds * 1000, idle_in_transaction_session_timeout: seconds * 1000 };
}

/**
 * Downloads and exports: a cursor's transaction waits between FETCHes while the client reads or an
 * upload runs, and a day's recount is one long statement, so both limits are longer, and the
 * pool is small.
 */
export function bulkConnectionLimits(): ConnectionLimits {
  const { DATABASE_BULK_STATEMENT_TIMEOUT_SECONDS: seconds } = env();
  return { statement_timeout: seconds * 1000, idle_in_transaction_session_timeout: seconds * 1000 };
}

function createPool(max: number, limits: ConnectionLimits): pg.Pool {
  const pool = new pg.Pool({
    connectionString: env().DATABASE_URL,
    types,
    max,
    ...limits,
    // A database that is down must turn into a quick 503, not a request that hangs.
    connectionTimeoutMillis: 3000,
  });
  // A connection the server closes (a restart, a failover, a timeout above) reports an error
  // event: on an idle connection through the pool, on one checked out between two statements of a
  // transaction through the client itself. Without a listener Node would end the whole process.
  // The query under way fails (503), and the pool drops the dead connection and connects anew.
  const lost = (error: Error) => logger().warn({ cause: error.message }, "database connection lost; reconnecting on the next query");
  pool.on("error", lost);
  pool.on("connect", (client) => client.on("error", lost));
  return pool;
}

/** The request pool: intake, ad query, attribution, report pages, dashboard figures. */
export function pgPool(): pg.Pool {
  holder.tallyPgPool ??= createPool(env().DATABASE_POOL_SIZE, requestConnectionLimits());
  return holder.tallyPgPool;
}

/** The bulk pool: report downloads, export batches, rollup recounts. */
export function bulkPool(): pg.Pool {
  holder.tallyBulkPool ??= createPool(env().DATABASE_BULK_POOL_SIZE, bulkConnectionLimits());
  return holder.tallyBulkPool;
}

export async function closePgPool(): Promise<void> {
  const pools = [holder.tallyPgPool, holder.tallyBulkPool];
  holder.tallyPgPool = undefined;
  holder.tallyBulkPool = undefined;
  await Promise.all(pools.map((pool) => pool?.end()));
}
