// A plain `pg` pool for the hot paths (beacon intake, ad query), where going through Prisma's
// adapter would cost more per request than the query itself. Ordinary queries use `db`.
import pg from "pg";
import { env } from "@/env";

const holder = globalThis as unknown as { tallyPgPool?: pg.Pool };

const BIGINT_OID = 20;

// BIGINT as JS bigint in this pool only (Prisma's adapter shares the pg module and expects
// strings): money in micro-units must never pass through a float.
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === BIGINT_OID ? (value: string) => BigInt(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export function pgPool(): pg.Pool {
  if (!holder.tallyPgPool) {
    const pool = new pg.Pool({
      connectionString: env().DATABASE_URL,
      types,
      max: env().DATABASE_POOL_SIZE,
      // A database that is down must turn into a quick 503, not a request that hangs.
      connectionTimeoutMillis: 3000,
    });
    // A connection the server closes (a restart, a failover) reports an error event: on an idle
    // connection through the pool, on one checked out between two statements of a transaction
    // through the client itself. Without a listener Node would end the whole process. The query
    // under way fails (503), and the pool drops the dead connection and connects anew when asked.
    const lost = (error: Error) => console.error(`tally: database connection lost (${error.message}); reconnecting on the next query`);
    pool.on("error", lost);
    pool.on("connect", (client) => client.on("error", lost));
    holder.tallyPgPool = pool;
  }
  return holder.tallyPgPool;
}

export async function closePgPool(): Promise<void> {
  const pool = holder.tallyPgPool;
  holder.tallyPgPool = undefined;
  await pool?.end();
}
