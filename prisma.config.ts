// Prisma CLI configuration (only the CLI loads this file; the app builds its own client).
// Migrations run on Prisma's WebAssembly schema engine through the pg driver adapter, so the
// CLI never downloads a native engine: see docs/decisions/0022-prisma-without-engines.md.
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { defineConfig } from "prisma/config";

// The WebAssembly schema engine reads catalog columns of Postgres types `name` (oid 19) and
// `"char"` (oid 18), which adapter-pg does not map ("Column type 'name' could not be
// deserialized"). Reporting them as `text` (oid 25) fixes `migrate deploy` (name) and
// `migrate diff` against a database (char). The adapter calls `pool.query` in its promise form,
// so the pool is the place to wrap.
const CATALOG_TEXT_OIDS = new Set([18, 19]);
const TEXT_OID = 25;
const originalQuery = pg.Pool.prototype.query as (...args: unknown[]) => Promise<pg.QueryResult>;
pg.Pool.prototype.query = async function patchedQuery(this: pg.Pool, ...args: unknown[]) {
  const result = await originalQuery.apply(this, args);
  for (const field of result?.fields ?? []) {
    if (CATALOG_TEXT_OIDS.has(field.dataTypeID)) field.dataTypeID = TEXT_OID;
  }
  return result;
} as typeof pg.Pool.prototype.query;

// `prisma generate` needs a well-formed URL but never contacts it.
process.env.DATABASE_URL ??= "postgresql://tally:tally@127.0.0.1:5433/tally";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  experimental: { adapter: true },
  engine: "js",
  adapter: async () => new PrismaPg({ connectionString: process.env.DATABASE_URL }),
});
