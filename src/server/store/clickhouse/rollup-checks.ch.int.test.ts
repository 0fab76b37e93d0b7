// The consistency check and repair of ClickHouse's report rollups: no difference once the pipeline's
// rows are shipped; a rollup row nobody counted, a figure off by one, or an order state nobody
// placed, is found; a rebuild of a day recounts it and leaves the month's other days as they were;
// writers wait for a rebuild; migration 4 counts the attributions already there once, however
// often it runs; a halo line counts in the halo figures alone, recounted and rebuilt as the
// views count it; a new-to-brand order counts in the new-to-brand figures and a repeat purchase
// of the brand does not, recounted and rebuilt alike; and how far back the raw rows are kept
// comes from ClickHouse's TTL.
import { beforeAll, describe, expect, it } from "vitest";
import { addDays, DAY_MS, utcDay } from "@/server/core/days";
import { pgPool } from "@/server/db/pg-pool";
import { store } from "@/server/store";
import { beacon, seedAcme, seedHaloOrder, seedRepeatOrder } from "@/testing/report-fixture";
import { insertRows, runCommand, selectRows } from "./client";
import { applyMigration, applyTtl, currentSchema, MIGRATIONS } from "./migrate.sql";
import { asRollupRebuilder } from "./rollup-writers.sql";

let acme: Awaited<ReturnType<typeof seedAcme>>;

/** report_rollups per day with order_rollups' distinct orders and converted clicks, as reads see them (merged or not). */
const figuresByDay = () =>
  selectRows<Record<string, string>>(
    `SELECT toString(r.day) AS day, r.impressions, r.clicks, r.spend, o.conversions, r.sales, o.conversions_click, r.sales_click, r.units, o.converted_clicks,
            o.halo_conversions, r.halo_sales, o.ntb_conversions, r.ntb_sales
       FROM (SELECT day, sum(impressions) AS impressions, sum(clicks) AS clicks, sum(spend_micros) AS spend, sum(sales_revenue_micros) AS sales,
                    sum(sales_revenue_click_micros) AS sales_click, sum(units_sold_micros) AS units, sum(halo_sales_revenue_micros) AS halo_sales,
                    sum(ntb_sales_revenue_micros) AS ntb_sales
               FROM report_rollups GROUP BY day) AS r
       LEFT JOIN (SELECT day, uniqExactMerge(conversions) AS conversions, uniqExactMerge(conversions_click) AS conversions_click,
                         uniqExactMerge(converted_clicks) AS converted_clicks, uniqExactMerge(halo_conversions) AS halo_conversions,
                         uniqExactMerge(ntb_conversions) AS ntb_conversions
                    FROM order_rollups GROUP BY day) AS o USING day
      ORDER BY day`,
  );
const NO_HALO = { halo_conversions: "0", halo_sales: "0" };
const NOTHING_CREDITED = {
  conversions: "0",
  sales: "0",
  conversions_click: "0",
  sales_click: "0",
  units: "0",
  converted_clicks: "0",
  ...NO_HALO,
  ntb_conversions: "0",
  ntb_sales: "0",
};

beforeAll(async () => {
  acme = await seedAcme();
  // Another day of the same month, which a rebuild of 10 November must leave as it is.
  await beacon("impression", acme.cpc, acme.shopA, "later-in-month", new Date("2026-11-20T09:00:00Z"));
  expect((await store().shipping!.ship()).error).toBeNull();
});

describe("the ClickHouse store's rollup check", () => {
  it("finds no difference once the settled rows are shipped", async () => {
    expect(await store().rollups.verify("2026-11-01", "2026-11-30")).toEqual([]);
    const figures = await figuresByDay();
    // The order's two lines (3 units) are both credited to one click of the same day, and are its shopper's first purchase of acme's brand there.
    expect(figures).toEqual([
      {
        day: "2026-11-10",
        impressions: "8",
        clicks: "2",
        spend: expect.any(String),
        conversions: "1",
        sales: "23000000",
        conversions_click: "1",
        sales_click: "23000000",
        units: "3000000",
        converted_clicks: "1",
        ...NO_HALO,
        ntb_conversions: "1",
        ntb_sales: "23000000",
      },
      { day: "2026-11-20", impressions: "1", clicks: "0", spend: "0", ...NOTHING_CREDITED },
    ]);
  });

  it("reports a rollup row no raw row accounts for, a figure off by one, an order nobody placed and raw rows no rollup counts, in the shape Postgres's check reports them", async () => {
    const key = { publisher_id: acme.shopAId, advertiser_id: acme.acmeId, campaign_id: acme.cpc.campaign.id, ad_id: acme.cpc.ad.id };
    const site = acme.shopA.sites[0]!.name;
    await insertRows("report_rollups", [{ day: "2026-11-10", ...key, site: "nowhere.example", placement_name: "p", impressions: 3 }], "");
    await insertRows("report_rollups", [{ day: "2026-11-10", ...key, site, placement_name: "p", clicks: 1 }], "");
    await runCommand(
      `INSERT INTO order_rollups (day, publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name, conversions)
       SELECT toDate('2026-11-10'), {publisher_id:String}, 'nowhere.example', {advertiser_id:String}, {campaign_id:String}, {ad_id:String}, 'p',
              uniqExactState(toUUID('00000000-0000-4000-8000-0000000000aa'))`,
      key,
    );
    await runCommand("ALTER TABLE report_rollups DELETE WHERE day = '2026-11-20' SETTINGS mutations_sync = 2");
    const differences = (await store().rollups.verify("2026-11-01", "2026-11-30")).sort(
      (a, b) => a.day.localeCompare(b.day) || a.measure.localeCompare(b.measure),
    );
    const where = { table: "report_rollups", ...key, placement_name: "p" };
    expect(differences).toEqual([
      { ...where, day: "2026-11-10", site, measure: "clicks", stored: "3", recounted: "2" },
      { ...where, table: "order_rollups", day: "2026-11-10", site: "nowhere.example", measure: "conversions", stored: "1", recounted: "0" },
      { ...where, day: "2026-11-10", site: "nowhere.example", measure: "impressions", stored: "3", recounted: "0" },
      { ...where, day: "2026-11-20", site, measure: "impressions", stored: "0", recounted: "1" },
    ]);
    // Days outside the check are not looked at.
    expect(await store().rollups.verify("2026-11-11", "2026-11-19")).toEqual([]);
  });

  it("rebuilds days from the raw rows, leaving the month's other days as they were", async () => {
    const before = await figuresByDay();
    expect(before.map((figures) => figures.day)).toEqual(["2026-11-10"]);
    // The order nobody placed counts until the rebuild.
    expect(before[0]!.conversions).toBe("2");
    const written = await store().rollups.rebuild("2026-11-10", "2026-11-10");
    // One row per key: the CPC ad on each shop and the CPM and other advertiser's ads on shop A.
    expect(written).toBe(4);
    expect(await store().rollups.verify("2026-11-10", "2026-11-10")).toEqual([]);
    expect(await figuresByDay()).toEqual([{ ...before[0], impressions: "8", clicks: "2", conversions: "1" }]);
    // The 20th, left out of that rebuild, is still missing; a rebuild of the month brings it back.
    expect((await store().rollups.verify("2026-11-01", "2026-11-30")).map((d) => d.day)).toEqual(["2026-11-20"]);
    expect(await store().rollups.rebuild("2026-11-01", "2026-11-30")).toBe(5);
    expect(await store().rollups.verify("2026-11-01", "2026-11-30")).toEqual([]);
    expect(await figuresByDay()).toEqual([
      { ...before[0], impressions: "8", clicks: "2", conversions: "1" },
      { day: "2026-11-20", impressions: "1", clicks: "0", spend: "0", ...NOTHING_CREDITED },
    ]);
  });

  it("holds the shipper back while a rebuild runs, and ships once it is done", async () => {
    await beacon("impression", acme.cpm, acme.shopA, "during-rebuild", new Date("2026-11-21T09:00:00Z"));
    await asRollupRebuilder(async () => {
      const held = await store().shipping!.ship();
      expect(held).toEqual({ batches: 0, rows: 0, setAside: 0, error: null });
      expect((await store().shipping!.state()).waiting).toBe(1);
    });
    expect((await store().shipping!.ship()).batches).toBe(1);
    expect(await store().rollups.verify("2026-11-01", "2026-11-30")).toEqual([]);
  });

  it("counts the attributions already there into the click credit figures once, however often migration 4 runs, whatever part it had done", async () => {
    const check = () => store().rollups.verify("2026-11-01", "2026-11-30");
    const migration = MIGRATIONS.find(({ version }) => version === 4)!;
    // The rollups as migration 4 finds them: parts written before it hold none of its figures.
    const empty = "arrayReduce('uniqExactState', CAST([], 'Array(UUID)'))";
    await runCommand("ALTER TABLE report_rollups UPDATE sales_revenue_click_micros = 0, units_sold_micros = 0 WHERE true SETTINGS mutations_sync = 2");
    await runCommand(`ALTER TABLE order_rollups UPDATE conversions_click = ${empty}, converted_clicks = ${empty} WHERE true SETTINGS mutations_sync = 2`);
    expect((await check()).map(({ measure }) => measure).sort()).toEqual([
      "conversions_click",
      "converted_clicks",
      "sales_revenue_click_micros",
      "units_sold_micros",
    ]);
    await applyMigration(migration, currentSchema());
    expect(await check()).toEqual([]);
    const counted = await figuresByDay();
    expect(counted[0]).toMatchObject({ conversions_click: "1", sales_click: "23000000", units: "3000000", converted_clicks: "1" });
    // Applied again (a crash before it was recorded, or another process at start): nothing changes.
    await applyMigration(migration, currentSchema());
    expect(await check()).toEqual([]);
    expect(await figuresByDay()).toEqual(counted);
    // Cut short with one of the sums counted and not the other: the rest is added, the first not again.
    await runCommand("ALTER TABLE report_rollups UPDATE units_sold_micros = 0 WHERE true SETTINGS mutations_sync = 2");
    await applyMigration(migration, currentSchema());
    expect(await check()).toEqual([]);
    expect(await figuresByDay()).toEqual(counted);
    // Migration 4 runs only before 5 (which gives its views their present queries), whatever the
    // order here: the later ones applied again, as a start would, put them back.
    for (const later of MIGRATIONS.filter(({ version }) => version > 4)) await applyMigration(later, currentSchema());
    expect(await check()).toEqual([]);
  });

  it("counts a halo line only in the halo figures, recounts and rebuilds them, and changes nothing when migration 5 runs again", async () => {
    const check = () => store().rollups.verify("2026-11-01", "2026-11-30");
    const before = await figuresByDay();
    // Only a halo line, credited to the click of the CPC ad that s1 made: the order is no conversion and the click no converted one.
    const halo = await seedHaloOrder(acme, { withOwnSku: false });
    const { rows } = await pgPool().query("SELECT match::text, event_kind::text, credited FROM attributions WHERE product_sku = $1", [halo.sku]);
    expect(rows).toEqual([{ match: "halo", event_kind: "click", credited: true }]);
    expect((await store().shipping!.ship()).error).toBeNull();
    expect(await check()).toEqual([]);
    const counted = await figuresByDay();
    const tenth = (figures: Record<string, string>[], changed: Record<string, string>) =>
      figures.map((day) => (day.day === "2026-11-10" ? { ...day, ...changed } : day));
    expect(counted).toEqual(tenth(before, { halo_conversions: "1", halo_sales: String(halo.haloValueMicros) }));
    // A rollup without them is found wanting, and a rebuild of the day counts them again.
    const empty = "arrayReduce('uniqExactState', CAST([], 'Array(UUID)'))";
    await runCommand("ALTER TABLE report_rollups UPDATE halo_sales_revenue_micros = 0 WHERE true SETTINGS mutations_sync = 2");
    await runCommand(`ALTER TABLE order_rollups UPDATE halo_conversions = ${empty} WHERE true SETTINGS mutations_sync = 2`);
    expect((await check()).map(({ measure, day }) => `${day} ${measure}`)).toEqual(["2026-11-10 halo_conversions", "2026-11-10 halo_sales_revenue_micros"]);
    await store().rollups.rebuild("2026-11-10", "2026-11-10");
    expect(await check()).toEqual([]);
    expect(await figuresByDay()).toEqual(counted);
    // Applied again (a crash before it was recorded), and the later ones after it as a start
    // would: no history to add, nothing changes.
    for (const again of MIGRATIONS.filter(({ version }) => version >= 5)) await applyMigration(again, currentSchema());
    expect(await check()).toEqual([]);
    expect(await figuresByDay()).toEqual(counted);
  });

  it("counts a new-to-brand order in the new-to-brand figures and a repeat purchase of the brand not, recounts and rebuilds them, and changes nothing when migration 6 runs again", async () => {
    const check = () => store().rollups.verify("2026-11-01", "2026-11-30");
    const before = await figuresByDay();
    const tenth = (figures: Record<string, string>[]) => figures.find((day) => day.day === "2026-11-10")!;
    // seedAcme's order, the shopper's first of acme's brand at shop A, is new to it (both lines).
    expect(tenth(before)).toMatchObject({ conversions: "1", ntb_conversions: "1", ntb_sales: "23000000" });
    const repeat = await seedRepeatOrder(acme);
    const { rows } = await pgPool().query(
      "SELECT match::text, credited, new_to_brand, total_value_micros::text FROM attributions WHERE order_id LIKE 'o-repeat-%'",
    );
    expect(rows).toEqual([{ match: "sku", credited: true, new_to_brand: false, total_value_micros: String(repeat.valueMicros) }]);
    expect((await store().shipping!.ship()).error).toBeNull();
    expect(await check()).toEqual([]);
    const counted = await figuresByDay();
    // An order and sales more, no new-to-brand order or sales more.
    expect(tenth(counted)).toMatchObject({
      conversions: "2",
      sales: String(Number(tenth(before).sales) + repeat.valueMicros),
      ntb_conversions: "1",
      ntb_sales: "23000000",
    });
    // A rollup without them is found wanting, and a rebuild of the day counts them again.
    const empty = "arrayReduce('uniqExactState', CAST([], 'Array(UUID)'))";
    await runCommand("ALTER TABLE report_rollups UPDATE ntb_sales_revenue_micros = 0 WHERE true SETTINGS mutations_sync = 2");
    await runCommand(`ALTER TABLE order_rollups UPDATE ntb_conversions = ${empty} WHERE true SETTINGS mutations_sync = 2`);
    expect((await check()).map(({ measure, day }) => `${day} ${measure}`)).toEqual(["2026-11-10 ntb_conversions", "2026-11-10 ntb_sales_revenue_micros"]);
    await store().rollups.rebuild("2026-11-10", "2026-11-10");
    expect(await check()).toEqual([]);
    expect(await figuresByDay()).toEqual(counted);
    // Applied again (a crash before it was recorded): no history to add, nothing changes.
    await applyMigration(MIGRATIONS.find(({ version }) => version === 6)!, currentSchema());
    expect(await check()).toEqual([]);
    expect(await figuresByDay()).toEqual(counted);
  });

  it("knows how far back its raw rows are kept from ClickHouse's TTL", async () => {
    expect(await store().rollups.rawRowsKeptFrom()).toEqual({ adEvents: null, orders: null });
    expect(await store().rollups.firstDayWithRawRows("2026-11-01")).toBe("2026-11-01");
    // Long enough that nothing here expires while the test looks.
    await applyTtl(currentSchema(), 3000);
    try {
      const keptFrom = addDays(utcDay(Date.now() - 3000 * DAY_MS), 1);
      expect(await store().rollups.rawRowsKeptFrom()).toEqual({ adEvents: keptFrom, orders: keptFrom });
      expect(await store().rollups.firstDayWithRawRows("2000-01-01")).toBe(keptFrom);
      expect(await store().rollups.firstDayWithRawRows("2026-11-01")).toBe("2026-11-01");
    } finally {
      await applyTtl(currentSchema(), 0);
    }
  });

  it("keeps Postgres's rollup tables empty in ClickHouse mode", async () => {
    const { rows } = await pgPool().query<{ n: number }>("SELECT count(*)::int AS n FROM daily_rollups");
    expect(rows[0]!.n).toBe(0);
  });
});
