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
  holder.tallyPgPool ??= new pg.Pool({
    connectionString: env().DATABASE_URL,
    types,
    max: env().DATABASE_POOL_SIZE,
    // A database that is down must turn into a quick 503, not a request that hangs.
    connectionTimeoutMillis: 3000,
  });
  return holder.tallyPgPool;
}

export async function closePgPool(): Promise<void> {
  const pool = holder.tallyPgPool;
  holder.tallyPgPool = undefined;
  await pool?.end();
}
