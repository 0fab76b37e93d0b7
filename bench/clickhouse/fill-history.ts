// A bench child: fills a chdb folder (CLICKHOUSE_URL) with the report dataset's settled rows read
// straight from its Postgres (DATABASE_URL) by ClickHouse's postgresql() table function, then
// copies them `copies - 1` more times, each copy 30 days further back with fresh ids: the stored
// history of a network that has run for copies × 30 days. The materialized views build the
// rollups (in every zone Postgres keeps) as the shipper's inserts would. Prints one JSON line: rows and seconds.
import { closeClickhouse, runCommand, selectRows } from "@/server/store/clickhouse/client";
import { HOURLY_TABLES } from "@/server/store/clickhouse/hourly-recount.ch.sql";
import { migrateClickhouse } from "@/server/store/clickhouse/migrate.sql";
import { ZONED_TABLES } from "@/server/store/clickhouse/zoned-rollups.sql";

const copies = Number(process.argv[2] ?? "5");
const source = new URL(process.env.DATABASE_URL!);
const started = Date.now();
const postgres = (table: string) =>
  `postgresql('${source.hostname}:${source.port}', '${source.pathname.slice(1)}', '${table}', '${decodeURIComponent(source.username)}', '${decodeURIComponent(source.password)}')`;

await migrateClickhouse();
const say = (line: string) => console.error(`bench: fill: ${line} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
// ClickHouse keeps the zones Postgres keeps, from the same starts (UTC's hours and São Paulo's days
// and hours from the dataset's first day: bench/reports/seed.ts), before any row is copied, so its
// views count the month in each zone as the shipper's inserts would have; the copies further back
// are before those starts, as history held in UTC days only.
await runCommand(`INSERT INTO report_zones (zone, since, hours_since, version)
                    SELECT zone, since, hours_since, toUnixTimestamp64Micro(now64(6)) + 1 FROM ${postgres("report_zones")}`);
say("kept zones copied from Postgres");
await runCommand(`INSERT INTO ad_events SELECT event_id, toString(kind), toString(status), session_id, user_id, ad_id, campaign_id, advertiser_id,
                    publisher_id, request_id, toString(ad_type), ad_size, placement_name, context, search_term, category, site, spend_micros, user_agent, client_hash,
                    created_at, 0 FROM ${postgres("ad_events")}`);
say("ad_events copied from Postgres");
await runCommand(`INSERT INTO attributions SELECT conversion_id, conversion_received_at, item_position, publisher_id, order_id, session_id, user_id,
                    product_sku, event_id, toString(event_kind), ad_id, campaign_id, advertiser_id, request_id, ad_size, toString(ad_type),
                    placement_name, context, search_term, category, site, event_created_at, placed_at, price_micros, promotional_price_micros, quantity,
                    total_value_micros, verified, credited, toString(match), new_to_brand, created_at, 0 FROM ${postgres("attributions")}`);
say("attributions copied from Postgres");
for (let copy = 1; copy < copies; copy++) {
  await runCommand(`INSERT INTO ad_events SELECT generateUUIDv4(number), kind, status, session_id, user_id, ad_id, campaign_id, advertiser_id,
                      publisher_id, request_id, ad_type, ad_size, placement_name, context, search_term, category, site, spend_micros, user_agent, client_hash,
                      created_at - INTERVAL ${copy * 30} DAY, 0
                      FROM (SELECT *, rowNumberInAllBlocks() AS number FROM ad_events WHERE batch_id = 0 AND created_at >= (SELECT max(created_at) - INTERVAL 30 DAY FROM ad_events))`);
  await runCommand(`INSERT INTO attributions SELECT generateUUIDv4(number), conversion_received_at - INTERVAL ${copy * 30} DAY, item_position, publisher_id,
                      order_id, session_id, user_id, product_sku, event_id, event_kind, ad_id, campaign_id, advertiser_id, request_id, ad_size, ad_type,
                      placement_name, context, search_term, category, site, event_created_at - INTERVAL ${copy * 30} DAY, placed_at - INTERVAL ${copy * 30} DAY, price_micros,
                      promotional_price_micros, quantity, total_value_micros, verified, credited, match, new_to_brand, created_at - INTERVAL ${copy * 30} DAY, 0
                      FROM (SELECT *, rowNumberInAllBlocks() AS number FROM attributions WHERE placed_at >= (SELECT max(placed_at) - INTERVAL 30 DAY FROM attributions))`);
  say(`copy ${copy + 1} of ${copies}`);
}
// Every rollup table merged, as a store that has run a while has them (background merges): the
// UTC tables, the zoned and the hourly alike, so no zone's reads are timed over unmerged parts.
for (const table of ["report_rollups", "order_rollups", "order_keys", ...ZONED_TABLES, ...HOURLY_TABLES]) await runCommand(`OPTIMIZE TABLE ${table} FINAL`);
const [counts] = await selectRows<{ events: string; attributions: string; rollup_rows: string }>(
  "SELECT (SELECT count() FROM ad_events) AS events, (SELECT count() FROM attributions) AS attributions, (SELECT count() FROM report_rollups) AS rollup_rows",
);
console.log(
  JSON.stringify({
    events: Number(counts!.events),
    attributions: Number(counts!.attributions),
    rollupRows: Number(counts!.rollup_rows),
    seconds: (Date.now() - started) / 1000,
  }),
);
await closeClickhouse();
