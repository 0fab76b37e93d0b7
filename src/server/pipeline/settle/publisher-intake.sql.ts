// Hand-written SQL: what each publisher's traffic made Tally store, per UTC day, kept by the settle
// steps in the transactions that store it (publisher_daily_intake). One row per (day, publisher,
// settle shard), and shard -1 for orders, so two workers of different shards never wait on one
// row. Read by /api/metrics and /api/health against TALLY_PUBLISHER_DAILY_STORAGE_ALERT_MB
// (src/server/upkeep/lags.sql.ts).
import type pg from "pg";
import sql, { type Sql } from "sql-template-tag";
import { utcDay } from "@/server/core/days";
import { prepared } from "@/server/db/prepared";

/** The shard under which orders are counted (they have one cursor, not shards). */
export const ORDERS_SHARD = -1;

export interface Intake {
  publisherId: string;
  at: Date;
  beacons?: number;
  orders?: number;
  setAside?: number;
  bytes: number;
}

/** The sums of `items` per (day, publisher), as the arrays `intakeUpsert` takes. */
export function intakeArrays(items: Intake[], shard: number): [string[], string[], number[], number[], number[], number[], number[]] {
  const sums = new Map<string, { day: string; publisherId: string; beacons: number; orders: number; setAside: number; bytes: number }>();
  for (const item of items) {
    const day = utcDay(item.at);
    const key = `${day}\u0000${item.publisherId}`;
    const sum = sums.get(key) ?? { day, publisherId: item.publisherId, beacons: 0, orders: 0, setAside: 0, bytes: 0 };
    sum.beacons += item.beacons ?? 0;
    sum.orders += item.orders ?? 0;
    sum.setAside += item.setAside ?? 0;
    sum.bytes += item.bytes;
    sums.set(key, sum);
  }
  // Rows are upserted in key order, so two transactions that share rows take their locks alike.
  const rows = [...sums.values()].sort((a, b) => (a.day === b.day ? (a.publisherId < b.publisherId ? -1 : 1) : a.day < b.day ? -1 : 1));
  return [
    rows.map((r) => r.day),
    rows.map((r) => r.publisherId),
    rows.map(() => shard),
    rows.map((r) => r.beacons),
    rows.map((r) => r.orders),
    rows.map((r) => r.setAside),
    rows.map((r) => r.bytes),
  ];
}

/** The upsert of intakeArrays' seven arrays, each one parameter. */
export function intakeUpsert([day, publisher, shard, beacons, orders, setAside, bytes]: ReturnType<typeof intakeArrays>): Sql {
  return sql`INSERT INTO publisher_daily_intake (day, publisher_id, shard, beacons, orders, set_aside, bytes)
          SELECT * FROM unnest(${day}::date[], ${publisher}::text[], ${shard}::int2[], ${beacons}::bigint[], ${orders}::bigint[], ${setAside}::bigint[], ${bytes}::bigint[])
          ON CONFLICT (day, publisher_id, shard) DO UPDATE
             SET beacons = publisher_daily_intake.beacons + EXCLUDED.beacons, orders = publisher_daily_intake.orders + EXCLUDED.orders,
                 set_aside = publisher_daily_intake.set_aside + EXCLUDED.set_aside, bytes = publisher_daily_intake.bytes + EXCLUDED.bytes`;
}

/** Adds `items` to their publishers' days, inside the caller's settle transaction. */
export async function recordIntake(client: pg.PoolClient, items: Intake[], shard: number): Promise<void> {
  if (items.length === 0) return;
  await client.query(prepared("settle-record-intake", intakeUpsert(intakeArrays(items, shard))));
}
