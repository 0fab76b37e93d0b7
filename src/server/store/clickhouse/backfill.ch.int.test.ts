// The backfill of rows settled before ClickHouse was the store: rows settled through the real
// pipeline, then stripped of their outbox batches (as Postgres mode left them), copied day by day
// in small chunks; the rollups then hold what Postgres's raw rows say. Run again it sends nothing;
// a day a run left half done is finished without counting a row twice.
import { beforeAll, describe, expect, it } from "vitest";
import { pgPool } from "@/server/db/pg-pool";
import { store } from "@/server/store";
import { beacon, seedAcme } from "@/testing/report-fixture";
import { type BackfillDay, backfillClickhouse } from "./backfill";
import { insertTabSeparated, selectRows } from "./client";
import { columnsOf, type ShippedRow, unbatchedRowsSql } from "./postgres-rows.sql";

const count = async (query: string) => Number((await selectRows<{ n: string }>(query))[0]!.n);
const postgresNumber = async (query: string) => Number((await pgPool().query<{ n: string }>(query)).rows[0]!.n);

/** The rollups' figures beside what Postgres's raw rows say they should be. */
async function rollupsAgainstPostgres() {
  const [rollups] = await selectRows<Record<string, string>>(
    `SELECT sum(impressions) AS impressions, sum(clicks) AS clicks, sum(spend_micros) AS spend, sum(duplicate_events) AS duplicates,
            sum(attributed_items) AS items, (SELECT uniqExactMerge(conversions) FROM order_rollups) AS orders, sum(sales_revenue_micros) AS sales,
            (SELECT uniqExactMerge(ntb_conversions) FROM order_rollups) AS ntb_orders, sum(ntb_sales_revenue_micros) AS ntb_sales
       FROM report_rollups`,
  );
  const { rows } = await pgPool().query<Record<string, string>>(
    `SELECT (SELECT count(*) FROM ad_events WHERE status = 'counted' AND kind = 'impression')::text AS impressions,
            (SELECT count(*) FROM ad_events WHERE status = 'counted' AND kind = 'click')::text AS clicks,
            (SELECT sum(spend_micros) FROM ad_events)::text AS spend,
            (SELECT count(*) FROM ad_events WHERE status = 'duplicate')::text AS duplicates,
            (SELECT count(*) FROM attributions WHERE credited)::text AS items,
            (SELECT count(DISTINCT conversion_id) FROM attributions WHERE credited)::text AS orders,
            (SELECT sum(total_value_micros) FROM attributions WHERE credited)::text AS sales,
            (SELECT count(DISTINCT conversion_id) FROM attributions WHERE credited AND match = 'sku' AND new_to_brand)::text AS ntb_orders,
            (SELECT sum(total_value_micros) FROM attributions WHERE credited AND match = 'sku' AND new_to_brand)::text AS ntb_sales`,
  );
  return { rollups, postgres: rows[0]! };
}

let acme: Awaited<ReturnType<typeof seedAcme>>;

/** Settled rows as Postgres mode leaves them: no outbox batch, nothing for the shipper to send. */
async function asIfSettledBeforeClickhouse() {
  await pgPool().query("UPDATE ad_events SET clickhouse_batch = NULL");
  await pgPool().query("UPDATE attributions SET clickhouse_batch = NULL");
  await pgPool().query("DELETE FROM clickhouse_batches");
}

beforeAll(async () => {
  acme = await seedAcme();
  // A duplicate (filtered, still a row) and a second day.
  await beacon("impression", acme.cpc, acme.shopA, "s0", new Date("2026-11-10T12:00:00.500Z"));
  for (let i = 0; i < 3; i++) await beacon("impression", acme.cpm, acme.shopA, `next-day-${i}`, new Date(`2026-11-11T0${i}:00:00Z`));
  await asIfSettledBeforeClickhouse();
});

describe("the ClickHouse backfill", () => {
  it("copies every row settled before ClickHouse, day by day in bounded chunks, and the rollups count them as Postgres's raw rows do", async () => {
    expect(await count("SELECT count() AS n FROM ad_events")).toBe(0);
    const days: BackfillDay[] = [];
    const outcome = await backfillClickhouse({ chunkRows: 3, onDay: (day) => days.push(day) });
    expect(days).toEqual(outcome.days);
    const events = await postgresNumber("SELECT count(*) AS n FROM ad_events");
    expect(days.map(({ table, day, heldBefore }) => ({ table, day, heldBefore }))).toEqual([
      { table: "ad_events", day: "2026-11-10", heldBefore: 0 },
      { table: "ad_events", day: "2026-11-11", heldBefore: 0 },
      { table: "attributions", day: "2026-11-10", heldBefore: 0 },
    ]);
    expect(days.reduce((sum, day) => sum + day.sent, 0)).toBe(events + 2);
    // 11 events on the 10th (the duplicate too) in chunks of at most 3 rows.
    expect(days[0]).toMatchObject({ postgresRows: 11, sent: 11, chunks: 4 });
    expect(await count("SELECT count() AS n FROM ad_events WHERE batch_id = 0")).toBe(events);
    expect(await count("SELECT count() AS n FROM attributions WHERE batch_id = 0")).toBe(2);
    const { rollups, postgres } = await rollupsAgainstPostgres();
    expect(rollups).toEqual(postgres);
    // The order is its shopper's first of acme's brand: new to it, which the backfill carries.
    expect(postgres).toMatchObject({ impressions: "11", clicks: "2", duplicates: "1", items: "2", orders: "1", sales: "23000000" });
    expect(postgres).toMatchObject({ ntb_orders: "1", ntb_sales: "23000000" });
    expect(await store().rollups.verify("2026-11-01", "2026-11-30")).toEqual([]);
    expect(outcome.postgresKeptFrom).toEqual({ adEvents: null, orders: null });
  });

  it("sends nothing when run again: every day is already there", async () => {
    const before = await rollupsAgainstPostgres();
    const again = await backfillClickhouse({ chunkRows: 3 });
    expect(again.days.map((day) => day.sent)).toEqual([0, 0, 0]);
    expect(again.days.every((day) => day.heldBefore === day.postgresRows)).toBe(true);
    expect(await rollupsAgainstPostgres()).toEqual(before);
    expect(await count("SELECT count() AS n FROM ad_events")).toBe(await postgresNumber("SELECT count(*) AS n FROM ad_events"));
  });

  it("finishes a day a run left half done, counting none of its rows twice, whatever its deduplication tokens remember", async () => {
    for (let i = 0; i < 5; i++) await beacon("impression", acme.cpc, acme.shopB, `half-${i}`, new Date(`2026-11-12T0${i}:00:00Z`));
    await asIfSettledBeforeClickhouse();
    // The run that stopped: two of the day's rows sent, in a chunk of another size than this run's.
    const query = unbatchedRowsSql("ad_events", new Date("2026-11-12"), new Date("2026-11-13"));
    const { rows } = await pgPool().query<ShippedRow>({ text: query.text, values: query.values, rowMode: "array" });
    expect(rows).toHaveLength(5);
    await insertTabSeparated("ad_events", columnsOf("ad_events"), rows.slice(0, 2), "an-earlier-run");
    const outcome = await backfillClickhouse({ from: "2026-11-12", to: "2026-11-12" });
    expect(outcome.days).toEqual([{ table: "ad_events", day: "2026-11-12", postgresRows: 5, heldBefore: 2, sent: 3, chunks: 1 }]);
    const { rollups, postgres } = await rollupsAgainstPostgres();
    expect(rollups).toEqual(postgres);
    expect(postgres.impressions).toBe("16");
    expect(await store().rollups.verify("2026-11-01", "2026-11-30")).toEqual([]);
  });

  it("runs one at a time: a backfill started while another holds the lock does nothing and says so", async () => {
    await beacon("impression", acme.cpc, acme.shopB, "while-another-runs", new Date("2026-11-12T09:00:00Z"));
    await asIfSettledBeforeClickhouse();
    // Another backfill, as another process would hold it: the lock on a connection of its own.
    const other = await pgPool().connect();
    try {
      await other.query("SELECT pg_advisory_lock(hashtextextended('tally-clickhouse-backfill', 0))");
      await expect(backfillClickhouse()).rejects.toThrow("another backfill is running");
      expect(await count("SELECT count() AS n FROM ad_events WHERE session_id = 'while-another-runs'")).toBe(0);
    } finally {
      await other.query("SELECT pg_advisory_unlock_all()");
      other.release();
    }
    // Once it is done, the next run goes ahead.
    const outcome = await backfillClickhouse();
    expect(outcome.days.reduce((sum, day) => sum + day.sent, 0)).toBe(1);
    expect((await rollupsAgainstPostgres()).rollups).toEqual((await rollupsAgainstPostgres()).postgres);
  });

  it("leaves rows the shipper sends alone", async () => {
    await beacon("impression", acme.cpc, acme.shopA, "after-the-switch", new Date("2026-11-13T09:00:00Z"));
    const outcome = await backfillClickhouse();
    expect(outcome.days.every((day) => day.sent === 0)).toBe(true);
    expect((await store().shipping!.ship()).rows).toBe(1);
    const { rollups, postgres } = await rollupsAgainstPostgres();
    expect(rollups).toEqual(postgres);
  });
});
