// `node --import tsx bench/clickhouse/order-keys-cost.ts [keys] [--runs N]`: what ClickHouse's order
// keys (migration 11) cost a write, on chdb in a folder of its own: every migration applied (with
// 11 for `keys`, without it otherwise), São Paulo kept beside UTC from 1970, then inserts of
// attribution lines (200,000 orders of one to three lines over 30 days, a quarter credited to
// clicks, some halo and new-to-brand: what the views of 2, 4 to 8 and 11 read), five blocks of
// 100,000 lines each as the shipper's inserts come, timed; and each order table's rows and bytes
// once merged. Run both ways in one sitting and compare: the figure is a ratio of the two.
// Only the migrations' statements are Tally's; the lines are made by SQL here.
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { Session } from "chdb";
import { MIGRATIONS } from "@/server/store/clickhouse/migrate.sql";
import { schemaOf } from "@/server/store/clickhouse/schema";

const { values, positionals } = parseArgs({ allowPositionals: true, options: { runs: { type: "string", default: "3" } } });
const withKeys = positionals[0] === "keys";
const folder = ".data/bench-order-keys-cost";
const schema = schemaOf({ deduplicationWindow: 500 });
const BLOCKS = 5;
const BLOCK_LINES = 100_000;

function once(): { insertMs: number; sizes: unknown[] } {
  rmSync(folder, { recursive: true, force: true });
  const session = new Session(folder);
  for (const migration of MIGRATIONS.filter(({ version }) => withKeys || version < 11)) {
    for (const statement of migration.statements(schema)) session.query(statement);
  }
  session.query("INSERT INTO report_zones SELECT 'America/Sao_Paulo', 0, 0, max(version) + 1 FROM report_zones");
  const started = Date.now();
  for (let block = 0; block < BLOCKS; block++) {
    // Line n belongs to order n / 2 (two lines an order on average, from 1 to 3 by hash).
    session.query(`INSERT INTO attributions (conversion_id, conversion_received_at, item_position, publisher_id, order_id, session_id, user_id,
                                             product_sku, event_id, event_kind, ad_id, campaign_id, advertiser_id, request_id, ad_type,
                                             placement_name, context, site, event_created_at, placed_at, price_micros, promotional_price_micros,
                                             quantity, total_value_micros, verified, credited, match, new_to_brand, created_at, batch_id)
      SELECT reinterpretAsUUID(toFixedString(hex(intDiv(n, 2)), 16)) AS conversion_id, placed, n % 3, toString(intHash32(intDiv(n, 2)) % 16),
             toString(intDiv(n, 2)), 's', 'u', 'sku', reinterpretAsUUID(toFixedString(hex(cityHash64(n % 40000)), 16)),
             if(n % 4 = 0, 'click', 'view'), toString(cityHash64(n) % 1985) AS ad, toString(cityHash64(n) % 1985 % 130),
             toString(cityHash64(n) % 1985 % 130 % 21), 'r', 'product', 'search-top', 'search', 'shop',
             placed - INTERVAL 1 HOUR, placed, 1000000, 0, 1, 1000000, n % 10 != 0, n % 5 != 0, if(n % 7 = 0, 'halo', 'sku'), n % 3 = 0, placed, 1
        FROM (SELECT number + ${block * BLOCK_LINES} AS n,
                     toDateTime64('2026-10-01 00:00:00', 3, 'UTC') + toIntervalMillisecond(intHash64(intDiv(n, 2)) % (30 * 86400000)) AS placed
                FROM numbers(${BLOCK_LINES}))`);
  }
  const insertMs = Date.now() - started;
  const tables = ["order_rollups", "zoned_order_rollups", "hourly_order_rollups", ...(withKeys ? ["order_keys", "zoned_order_keys"] : [])];
  for (const table of tables) session.query(`OPTIMIZE TABLE ${table} FINAL`);
  const sizes = session.query(
    `SELECT table, sum(rows) AS rows, sum(bytes_on_disk) AS bytes FROM system.parts
      WHERE active AND database = currentDatabase() AND table IN (${tables.map((table) => `'${table}'`).join(", ")}) GROUP BY table ORDER BY table`,
    "JSONEachRow",
  );
  session.cleanup();
  rmSync(folder, { recursive: true, force: true });
  return {
    insertMs,
    sizes: sizes
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line)),
  };
}

const runs = Array.from({ length: Number(values.runs) }, once);
console.log(JSON.stringify({ migrations: withKeys ? "1 to 11" : "1 to 10", insertMs: runs.map((run) => run.insertMs), sizes: runs[0]!.sizes }));
