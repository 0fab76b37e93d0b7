// What a kept zone costs ClickHouse's inserts and rollups (docs/decisions/0051, "ClickHouse: rollups
// per kept zone"): 2M synthetic events (2,000 ads of 130 campaigns, 21 advertisers, 16 publishers,
// over 30 days) inserted into ad_events in blocks of 100,000, as the shipper inserts, on a fresh
// chdb folder migrated to the current schema, with the zones given kept from before the events.
// Prints the insert time and the rollup rows and bytes, UTC's and the zones'.
//   npx tsx bench/clickhouse/zoned-rollups-cost.ts [zone,zone,...]
// Run it with no zone, one and two, one after the other: one process opens one chdb folder.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Session } from "chdb";
import { MIGRATIONS } from "../../src/server/store/clickhouse/migrate.sql";
import { schemaOf } from "../../src/server/store/clickhouse/schema";

const BLOCKS = 20;
const PER_BLOCK = 100_000;
const zones = (process.argv[2] ?? "").split(",").filter((zone) => /^[A-Za-z_]+\/[A-Za-z_]+$/.test(zone));
const folder = mkdtempSync(path.join(tmpdir(), "tally-zone-cost-"));
const session = new Session(folder);
try {
  const schema = schemaOf({ deduplicationWindow: 100 });
  for (const migration of MIGRATIONS) for (const statement of migration.statements(schema)) session.query(statement);
  for (const zone of zones) {
    session.query(`INSERT INTO report_zones VALUES ('${zone}', toDateTime64('2026-01-01', 3, 'UTC'), toDateTime64('2026-01-01', 3, 'UTC'), 2)`);
  }
  const started = performance.now();
  for (let block = 0; block < BLOCKS; block++) {
    // Keys nest (an ad has one campaign, a campaign one advertiser): 2,000 report keys a day.
    session.query(`INSERT INTO ad_events (event_id, kind, status, session_id, ad_id, campaign_id, advertiser_id, publisher_id, request_id,
                                          ad_type, placement_name, context, site, spend_micros, created_at, batch_id)
      SELECT generateUUIDv4(), ['impression', 'click', 'view'][1 + number % 3], if(number % 50 = 0, 'bot', 'counted'), toString(number % 5000),
             concat('ad', toString(number % 2000)), concat('c', toString(number % 2000 % 130)), concat('a', toString(number % 2000 % 130 % 21)),
             concat('p', toString(number % 2000 % 16)), toString(number), 'banner', 'top', 'search', 'site', 1000,
             toDateTime64('2026-11-01', 3, 'UTC') + toIntervalMillisecond(intDiv((${block} * ${PER_BLOCK} + number) * 2592000000, ${BLOCKS * PER_BLOCK})), ${block}
        FROM numbers(${PER_BLOCK})`);
  }
  const insertMs = performance.now() - started;
  for (const table of ["report_rollups", "zoned_report_rollups"]) session.query(`OPTIMIZE TABLE ${table} FINAL`);
  const sizes = session.query(
    `SELECT (SELECT count() FROM report_rollups) AS utc_rows, (SELECT count() FROM zoned_report_rollups) AS zoned_rows,
            (SELECT sum(bytes_on_disk) FROM system.parts WHERE active AND table = 'report_rollups') AS utc_bytes,
            (SELECT sum(bytes_on_disk) FROM system.parts WHERE active AND table = 'zoned_report_rollups') AS zoned_bytes`,
    "JSONEachRow",
  );
  console.log(JSON.stringify({ zones, events: BLOCKS * PER_BLOCK, msPerBlock: Math.round(insertMs / BLOCKS), ...JSON.parse(sizes) }));
} finally {
  session.cleanup();
  rmSync(folder, { recursive: true, force: true });
}
