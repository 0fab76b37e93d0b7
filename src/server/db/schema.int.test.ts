// The committed migrations are the schema: applied to an empty database they must produce
// exactly what prisma/schema.prisma describes plus prisma/hand-written.sql, with the indexes the
// hot paths rely on.
import { readFile } from "node:fs/promises";
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { dropDatabase, ensureDatabase } from "@/cli/local/embedded-postgres";
import { runPrisma } from "@/cli/local/prisma-cli";
import { catalogSnapshot, partitionedTables } from "@/testing/catalog-snapshot";
import { db } from "./client";

describe("migrations", () => {
  it("produce exactly the schema of schema.prisma", async () => {
    const adminUrl = inject("pgAdminUrl");
    const fromDatamodel = `tally_datamodel_${process.pid}`;
    const url = new URL(adminUrl);
    url.pathname = `/${fromDatamodel}`;
    await ensureDatabase(adminUrl, fromDatamodel);
    try {
      const script = await runPrisma(["migrate", "diff", "--from-empty", "--to-schema-datamodel", "prisma/schema.prisma", "--script"], url.toString(), {
        quiet: true,
      });
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      await client.query(script.slice(script.indexOf("-- Create")));
      // What the schema language cannot say (partial indexes, CHECKs) is written down once.
      await client.query(await readFile("prisma/hand-written.sql", "utf8"));
      await client.end();

      const migrated = await catalogSnapshot(process.env.DATABASE_URL!);
      const expected = await catalogSnapshot(url.toString());
      expect(migrated.length).toBeGreaterThan(200);
      expect(migrated).toEqual(expected);
    } finally {
      await dropDatabase(adminUrl, fromDatamodel);
    }
  });

  it("partition the logs and the three largest tables by day", async () => {
    expect(await partitionedTables(process.env.DATABASE_URL!)).toEqual([
      "ad_events: RANGE (created_at)",
      "attributions: RANGE (conversion_received_at)",
      "beacon_log: RANGE (received_at)",
      "conversion_log: RANGE (received_at)",
      "conversions: RANGE (received_at)",
    ]);
  });

  it("create every table of the data model", async () => {
    const rows = await db.$queryRaw<{ table_name: string }[]>`
      SELECT table_name::text AS table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`;
    expect(rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining([
        "accounts",
        "sites",
        "campaigns",
        "campaign_publishers",
        "campaign_products",
        "products",
        "ads",
        "ad_products",
        "ad_events",
        "conversions",
        "order_receipts",
        "attributions",
        "daily_rollups",
        "campaign_daily_spend",
        "advertiser_daily_spend",
        "users",
        "user_sessions",
        "api_keys",
        "export_destinations",
        "export_runs",
        "export_watermarks",
        "attribution_windows",
      ]),
    );
  });

  it("index counted events by session, ad, kind and time (no other status), by campaign and time, and orders by publisher and order id", async () => {
    const rows = await db.$queryRaw<{ indexdef: string }[]>`SELECT indexdef FROM pg_indexes WHERE schemaname = 'public'`;
    const defs = rows.map((r) => r.indexdef);
    expect(defs).toContainEqual(
      expect.stringMatching(/ON ONLY public\.ad_events USING btree \(session_id, ad_id, kind, created_at\) WHERE \(status = 'counted'::"EventStatus"\)/),
    );
    expect(defs).not.toContainEqual(expect.stringMatching(/ON ONLY public\.ad_events USING btree \(session_id, created_at\)$/));
    expect(defs).toContainEqual(expect.stringMatching(/ON ONLY public\.ad_events USING btree \(campaign_id, created_at\)/));
    expect(defs).toContainEqual(expect.stringMatching(/ON ONLY public\.conversions USING btree \(publisher_id, order_id\)/));
    expect(defs).toContainEqual(expect.stringMatching(/UNIQUE INDEX order_receipts_pkey ON public\.order_receipts USING btree \(publisher_id, order_id\)/));
  });

  it("default every campaign type's click and view windows to the interface's 14 days, with impressions earning view-through credit", async () => {
    const windows = await db.attributionWindow.findMany({ orderBy: { campaignType: "asc" } });
    expect(windows.map((w) => [w.campaignType, w.clickWindowSeconds, w.viewWindowSeconds, w.viewThrough])).toEqual([
      ["product", 14 * 86_400, 14 * 86_400, "views_and_impressions"],
      ["display", 14 * 86_400, 14 * 86_400, "views_and_impressions"],
      ["video", 14 * 86_400, 14 * 86_400, "views_and_impressions"],
    ]);
  });

  it("refuse a campaign type's window shorter than a day or longer than 90", async () => {
    await expect(db.$executeRawUnsafe("UPDATE attribution_windows SET view_window_seconds = 86399 WHERE campaign_type = 'video'")).rejects.toThrow(
      /attribution_windows_days/,
    );
    await expect(db.$executeRawUnsafe("UPDATE attribution_windows SET click_window_seconds = 7776001 WHERE campaign_type = 'video'")).rejects.toThrow(
      /attribution_windows_days/,
    );
  });
});
