// The migration that partitions ad_events, conversions and attributions by day carries every row
// of an existing installation over: a database migrated to the step before it, holding events,
// an order and its attribution, then that migration, as Prisma applies it (statement by statement).
import { readdir, readFile } from "node:fs/promises";
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { dropDatabase, ensureDatabase } from "@/cli/local/embedded-postgres";

const MIGRATION = "20261127000000_raw_day_partitions";

const statementsOf = (sql: string) =>
  sql
    .replace(/^--.*$/gm, "")
    .split(";")
    .map((statement) => statement.trim())
    .filter(Boolean);

describe("the day partitions migration", () => {
  it("moves the stored events, orders and attributions into the partitioned tables", async () => {
    const adminUrl = inject("pgAdminUrl");
    const name = `tally_partition_migration_${process.pid}`;
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    await ensureDatabase(adminUrl, name);
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    try {
      const migrations = (await readdir("prisma/migrations", { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
      migrations.sort();
      for (const migration of migrations.slice(0, migrations.indexOf(MIGRATION))) {
        await client.query(await readFile(`prisma/migrations/${migration}/migration.sql`, "utf8"));
      }
      await client.query(`
        INSERT INTO accounts (id, kind, name, updated_at) VALUES ('pub_1', 'publisher', 'Shop', now());
        INSERT INTO ad_events (event_id, kind, status, session_id, user_id, ad_id, campaign_id, advertiser_id, publisher_id, request_id,
                               ad_type, placement_name, context, site, spend_micros, created_at)
        SELECT gen_random_uuid(), 'click', 'counted', 's-1', 'u-1', 'ad_1', 'cmp_1', 'adv_1', 'pub_1', 'r-' || n,
               'product', 'search', 'search', 'shop', 400000, now() - n * interval '1 day'
          FROM generate_series(1, 3) AS n;
        INSERT INTO conversions (event_id, publisher_id, order_id, user_id, session_id, channel, site, placed_at, email_hashed, received_at, attributed_at, items)
        VALUES ('00000000-0000-7000-8000-000000000001', 'pub_1', 'order-1', 'u-1', 's-1', 'online store', 'shop', now() - interval '1 hour',
                repeat('a', 64), now() - interval '59 minutes', now(), '[{"sku": "SKU-1", "quantity": 1, "price_micros": 10000000, "promotional_price_micros": 8000000}]');
        INSERT INTO attributions (conversion_id, item_position, publisher_id, order_id, session_id, user_id, product_sku, event_id, event_kind,
                                  ad_id, campaign_id, advertiser_id, request_id, ad_type, placement_name, context, site, event_created_at,
                                  placed_at, price_micros, promotional_price_micros, quantity, total_value_micros)
        SELECT '00000000-0000-7000-8000-000000000001', 0, 'pub_1', 'order-1', 's-1', 'u-1', 'SKU-1', event_id, 'click',
               'ad_1', 'cmp_1', 'adv_1', request_id, 'product', 'search', 'search', 'shop', created_at,
               now() - interval '1 hour', 10000000, 8000000, 1, 8000000
          FROM ad_events ORDER BY created_at DESC LIMIT 1;`);

      for (const statement of statementsOf(await readFile(`prisma/migrations/${MIGRATION}/migration.sql`, "utf8"))) await client.query(statement);

      const { rows } = await client.query<{ events: number; orders: number; attributions: number; received_matches: boolean; partitioned: string[] }>(`
        SELECT (SELECT count(*)::int FROM ad_events WHERE spend_micros = 400000) AS events,
               (SELECT count(*)::int FROM conversions WHERE order_id = 'order-1' AND attributed_at IS NOT NULL) AS orders,
               (SELECT count(*)::int FROM attributions) AS attributions,
               (SELECT bool_and(a.conversion_received_at = c.received_at) FROM attributions a JOIN conversions c ON c.event_id = a.conversion_id) AS received_matches,
               (SELECT array_agg(c.relname::text ORDER BY c.relname) FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid
                 WHERE c.relname IN ('ad_events', 'conversions', 'attributions')) AS partitioned`);
      expect(rows[0]).toEqual({ events: 3, orders: 1, attributions: 1, received_matches: true, partitioned: ["ad_events", "attributions", "conversions"] });
      // The old tables are gone, and new rows still go in (into the default partition until upkeep makes the day).
      expect((await client.query("SELECT to_regclass('ad_events_unpartitioned') AS t")).rows).toEqual([{ t: null }]);
      await client.query(`INSERT INTO ad_events (event_id, kind, status, session_id, ad_id, campaign_id, advertiser_id, publisher_id, request_id,
                                                 ad_type, placement_name, context, site)
                          VALUES (gen_random_uuid(), 'view', 'counted', 's-2', 'ad_1', 'cmp_1', 'adv_1', 'pub_1', 'r-new', 'product', 'home', 'home', 'shop')`);
      expect((await client.query("SELECT count(*)::int AS n FROM ad_events_default")).rows).toEqual([{ n: 4 }]);
    } finally {
      await client.end();
      await dropDatabase(adminUrl, name);
    }
  });
});
