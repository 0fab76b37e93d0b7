// `node --import tsx bench/clickhouse/hourly-cost.ts [no-hours | [zoned | projections] zone...]`: what
// ClickHouse's hourly rollups (migration 8) cost, on chdb in a folder of its own: the migrations
// applied (without 8 for `no-hours`; with the zoned rollups of 7 for `zoned`, and with 10's
// projections too for `projections`), the zones given kept from 1970 (UTC always), then one insert of a million
// synthetic events over 30 days (130 campaigns of 21 advertisers, 1,985 ads, 16 publishers, times
// spread evenly over the hours: more hourly rows than real traffic's quiet nights give), timed,
// and each table's rows and bytes once merged. docs/decisions/0051-days-in-each-accounts-time-zone.md
// quotes it. Only the migrations' statements are Tally's; the events are made by SQL here.
import { rmSync } from "node:fs";
import { Session } from "chdb";
import * as settledEvents from "@/server/store/clickhouse/migrations/0001-settled-events.sql";
import * as orderRollups from "@/server/store/clickhouse/migrations/0002-order-rollups.sql";
import * as publisherProjections from "@/server/store/clickhouse/migrations/0003-publisher-projections.sql";
import * as clickCredit from "@/server/store/clickhouse/migrations/0004-click-credit.sql";
import * as haloCredit from "@/server/store/clickhouse/migrations/0005-halo-credit.sql";
import * as newToBrand from "@/server/store/clickhouse/migrations/0006-new-to-brand.sql";
import * as zonedRollups from "@/server/store/clickhouse/migrations/0007-zoned-rollups.sql";
import * as hourlyRollups from "@/server/store/clickhouse/migrations/0008-hourly-rollups.sql";
import * as zoneProjections from "@/server/store/clickhouse/migrations/0010-zone-projections.sql";
import { schemaOf } from "@/server/store/clickhouse/schema";

const withoutHours = process.argv[2] === "no-hours";
const withProjections = process.argv[2] === "projections";
const withZoned = withProjections || process.argv[2] === "zoned";
const zones = withoutHours ? [] : process.argv.slice(2).filter((zone) => !["UTC", "zoned", "projections"].includes(zone));
const folder = `.data/bench-hourly-cost`;
rmSync(folder, { recursive: true, force: true });
const session = new Session(folder);
const schema = schemaOf({ deduplicationWindow: 500 });
const migrations = [
  settledEvents,
  orderRollups,
  publisherProjections,
  clickCredit,
  haloCredit,
  newToBrand,
  ...(withZoned ? [zonedRollups] : []),
  ...(withoutHours ? [] : [hourlyRollups]),
  ...(withProjections ? [zoneProjections] : []),
];
for (const migration of migrations) for (const statement of migration.statements(schema)) session.query(statement);
// Every zone from 1970, UTC's too: migration 8 started them at the next whole hour.
for (const zone of withoutHours ? [] : ["UTC", ...zones]) {
  session.query(`INSERT INTO report_zones SELECT '${zone}', 0, 0, max(version) + 1 FROM report_zones`);
}
const started = Date.now();
session.query(`INSERT INTO ad_events (event_id, kind, status, session_id, ad_id, campaign_id, advertiser_id, publisher_id, request_id, ad_type,
                                      placement_name, context, site, spend_micros, created_at, batch_id)
  SELECT generateUUIDv4(), if(number % 50 = 0, 'click', 'impression'), 'counted', toString(number % 100000), toString(cityHash64(number) % 1985),
         toString(cityHash64(number) % 1985 % 130), toString(cityHash64(number) % 1985 % 130 % 21), toString(intHash32(number) % 16), toString(number),
         'product', 'search-top', 'search', 'shop', 1000,
         toDateTime64('2026-10-01 00:00:00', 3, 'UTC') + toIntervalMillisecond(intHash64(number) % (30 * 86400000)), 1
    FROM numbers(1000000)`);
const insertMs = Date.now() - started;
const tables = ["ad_events", "report_rollups", ...(withZoned ? ["zoned_report_rollups"] : []), ...(withoutHours ? [] : ["hourly_rollups"])];
for (const table of tables) session.query(`OPTIMIZE TABLE ${table} FINAL`);
const listed = tables.map((table) => `'${table}'`).join(", ");
const sizes = session.query(
  `SELECT table, '' AS projection, sum(rows) AS rows, sum(bytes_on_disk) AS bytes FROM system.parts
    WHERE active AND database = currentDatabase() AND table IN (${listed}) GROUP BY table
   UNION ALL
   SELECT table, name AS projection, sum(rows) AS rows, sum(bytes_on_disk) AS bytes FROM system.projection_parts
    WHERE active AND database = currentDatabase() AND table IN (${listed}) GROUP BY table, name
   ORDER BY table, projection`,
  "JSONEachRow",
);
console.log(
  JSON.stringify({
    zones: withoutHours ? "no hourly rollups" : ["UTC", ...zones],
    migrations: withProjections ? "with 7 and 10" : withZoned ? "with 7" : "without 7 and 10",
    insertMs,
    sizes: sizes
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line)),
  }),
);
session.cleanup();
rmSync(folder, { recursive: true, force: true });
