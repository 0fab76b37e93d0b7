// What a process does with the store when it starts: with ClickHouse as the store, its schema is
// brought up to date (numbered migrations and the TTL, store/clickhouse/migrate.ts) beside
// Prisma's migrations of Postgres, so a deploy needs no step of its own for it. Migrations are
// idempotent and recorded, so every web process and worker may run them at start. And whatever the
// store, the kept report zones are checked against Postgres's tz database, so a zone a later
// Postgres dropped is left out before the first batch rather than found by every batch failing.
import { env } from "@/env";
import { migrateClickhouse } from "@/server/store/clickhouse/migrate.sql";
import { checkReportZones, type UnknownZone } from "@/server/store/unknown-zones.sql";

const holder = globalThis as unknown as { tallyStoreMigrated?: Promise<number[] | null> };

/** The store's schema brought up to date: the ClickHouse migrations applied now, or null with Postgres as the store. */
export async function migrateStore(): Promise<number[] | null> {
  if (!env().CLICKHOUSE_URL) return null;
  return migrateClickhouse();
}

/**
 * migrateStore once per process, and again after a failure: a web server that started while
 * ClickHouse was unreachable still serves (beacons and orders do not need it), and its shipper
 * migrates before its first batch once ClickHouse answers.
 */
export function ensureStoreMigrated(): Promise<number[] | null> {
  holder.tallyStoreMigrated ??= migrateStore().catch((error: unknown) => {
    holder.tallyStoreMigrated = undefined;
    throw error;
  });
  return holder.tallyStoreMigrated;
}

/**
 * The kept report zones Postgres does not know, each recorded (the writers then leave it out) and
 * logged once (store/unknown-zones.sql.ts): called at every server's and worker's start.
 */
export const checkStoreZones = (): Promise<UnknownZone[]> => checkReportZones();
