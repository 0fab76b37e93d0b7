// Hand-written SQL: ClickHouse's schema, applied at start as Prisma's migrations are for Postgres: numbered
// migrations (migrations/NNNN-*.sql.ts), each applied once and recorded in tally_clickhouse_migrations,
// then the events' TTL set to what CLICKHOUSE_TTL_DAYS says now. Statements are idempotent
// (IF NOT EXISTS), so a migration cut short by a crash is applied again whole. Every process
// migrates at start (start-store.ts), so two may apply one migration at once: a statement that
// adds to the rollups what they lack runs among its migration's `alone` statements, as the
// rollups' only writer (rollup-writers.sql.ts), one process after the other.
import { env } from "@/env";
import { logger } from "@/server/core/log";
import { runCommand, selectRows } from "./client";
import * as settledEvents from "./migrations/0001-settled-events.sql";
import * as orderRollups from "./migrations/0002-order-rollups.sql";
import * as publisherProjections from "./migrations/0003-publisher-projections.sql";
import * as clickCredit from "./migrations/0004-click-credit.sql";
import * as haloCredit from "./migrations/0005-halo-credit.sql";
import * as newToBrand from "./migrations/0006-new-to-brand.sql";
import * as zonedRollups from "./migrations/0007-zoned-rollups.sql";
import * as hourlyRollups from "./migrations/0008-hourly-rollups.sql";
import * as searchTerms from "./migrations/0009-search-terms.sql";
import * as zoneProjections from "./migrations/0010-zone-projections.sql";
import * as orderKeys from "./migrations/0011-order-keys.sql";
import { asRollupRebuilder } from "./rollup-writers.sql";
import { type Schema, schemaOf } from "./schema";

export interface Migration {
  version: number;
  name: string;
  statements(schema: Schema): string[];
  /**
   * Statements run after `statements` while no shipper, backfill, rebuild or other process's
   * migration adds to the rollups (rollup-writers.sql.ts), so each may count what the rollups hold
   * and add what they lack; only when `needed` (a query of one row, `n`) finds n > 0: on a new
   * database there is nothing to add, and no lock is taken.
   */
  alone?: { needed: string; statements(schema: Schema): string[] };
}

/** Every migration, in order; a new one is appended with the next number. */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "settled-events", ...settledEvents },
  { version: 2, name: "order-rollups", ...orderRollups },
  { version: 3, name: "publisher-projections", ...publisherProjections },
  { version: 4, name: "click-credit", ...clickCredit },
  { version: 5, name: "halo-credit", ...haloCredit },
  { version: 6, name: "new-to-brand", ...newToBrand },
  { version: 7, name: "zoned-rollups", ...zonedRollups },
  { version: 8, name: "hourly-rollups", ...hourlyRollups },
  { version: 9, name: "search-terms", ...searchTerms },
  { version: 10, name: "zone-projections", ...zoneProjections },
  { version: 11, name: "order-keys", ...orderKeys },
];

/** The tables that expire with CLICKHOUSE_TTL_DAYS, and the time each expires by. Rollups are kept. */
const EXPIRING: readonly { table: string; column: string }[] = [
  { table: "ad_events", column: "created_at" },
  { table: "attributions", column: "placed_at" },
];

export function currentSchema(): Schema {
  const settings = env();
  return schemaOf({ cluster: settings.CLICKHOUSE_CLUSTER, deduplicationWindow: settings.CLICKHOUSE_DEDUPLICATION_WINDOW });
}

/** Applies the migrations not yet applied, then the TTL; returns the versions applied now. */
export async function migrateClickhouse(schema: Schema = currentSchema()): Promise<number[]> {
  const book = schema.local("tally_clickhouse_migrations");
  await runCommand(
    `CREATE TABLE IF NOT EXISTS ${book}${schema.onCluster} (version UInt32, name String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3))
     ENGINE = ${schema.engine("ReplacingMergeTree", "tally_clickhouse_migrations")} ORDER BY version`,
  );
  const done = new Set((await selectRows<{ version: number }>(`SELECT DISTINCT version FROM ${book}`)).map((row) => Number(row.version)));
  const applied: number[] = [];
  for (const migration of MIGRATIONS) {
    if (done.has(migration.version)) continue;
    await applyMigration(migration, schema);
    await runCommand(`INSERT INTO ${book} (version, name) VALUES ({version:UInt32}, {name:String})`, {
      version: migration.version,
      name: migration.name,
    });
    applied.push(migration.version);
    logger().info({ version: migration.version, name: migration.name }, "clickhouse migration applied");
  }
  await applyTtl(schema, env().CLICKHOUSE_TTL_DAYS);
  return applied;
}

/** One migration's statements, unrecorded: a migration applied again must change nothing. */
export async function applyMigration(migration: Migration, schema: Schema): Promise<void> {
  for (const statement of migration.statements(schema)) await runCommand(statement);
  const { alone } = migration;
  if (!alone || Number((await selectRows<{ n: string }>(alone.needed))[0]?.n ?? 0) === 0) return;
  await asRollupRebuilder(async () => {
    for (const statement of alone.statements(schema)) await runCommand(statement);
  });
}

/**
 * Sets each expiring table's TTL to `days` (0: none), altering only a table whose TTL differs, so
 * a restart costs nothing. Parts already written are dropped as merges reach them, not at once.
 */
export async function applyTtl(schema: Schema, days: number): Promise<void> {
  for (const { table, column } of EXPIRING) {
    const local = schema.local(table);
    const [row] = await selectRows<{ create_table_query: string }>(
      "SELECT create_table_query FROM system.tables WHERE database = currentDatabase() AND name = {name:String}",
      { name: local },
    );
    const current = /\bTTL\s+\S+\s*\+\s*(?:toIntervalDay\((\d+)\)|INTERVAL\s+(\d+)\s+DAY)/i.exec(row?.create_table_query ?? "");
    const currentDays = current ? Number(current[1] ?? current[2]) : 0;
    if (currentDays === days) continue;
    if (days === 0) {
      await runCommand(`ALTER TABLE ${local}${schema.onCluster} REMOVE TTL`);
    } else {
      await runCommand(
        `ALTER TABLE ${local}${schema.onCluster} MODIFY TTL toDateTime(${column}) + INTERVAL ${days} DAY SETTINGS materialize_ttl_after_modify = 0`,
      );
    }
    logger().info({ table, days }, "clickhouse ttl set");
  }
}
