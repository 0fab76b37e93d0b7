// A bench child: one case of Postgres's size against stored history. It settles nothing itself:
// each day of `days` (ending yesterday) is generated straight into Postgres as settling would
// have left it (ad events, daily spend, and in the mode's way: Postgres's report rows recounted
// for the day, or the day's rows stamped with outbox batches the shipper has marked sent), oldest
// first, and the real upkeep (partitions, retention) runs every 10 days and at the end, as the
// hourly upkeep would have. Then Postgres's size is read. The mode is this process's
// CLICKHOUSE_URL (set or not); ClickHouse itself is never opened, since Postgres is what is measured.
// argv: days, events per day. Prints one JSON line.
import { addDays, utcDay } from "@/server/core/days";
import { pgPool } from "@/server/db/pg-pool";
import { store } from "@/server/store";
import { createDayPartitions } from "@/server/upkeep/day-partitions.sql";
import { upkeep } from "@/server/upkeep/upkeep";

const { seedDemoData } = await import("../../prisma/seed");
await seedDemoData(() => {});
const days = Number(process.argv[2]);
const perDay = Number(process.argv[3]);
const clickhouse = store().shipping !== undefined;
const pool = pgPool();
const started = Date.now();
const today = utcDay();
const say = (line: string) =>
  console.error(`bench: bound (${clickhouse ? "clickhouse" : "postgres"}, ${days} days): ${line} (${((Date.now() - started) / 1000).toFixed(0)} s)`);

// A table, not a temporary one: the pool hands out several connections.
await pool.query(`CREATE TABLE bench_ads AS
  SELECT (row_number() OVER (ORDER BY a.id)) - 1 AS i, a.id AS ad_id, c.id AS campaign_id, c.advertiser_id, cp.publisher_id, s.name AS site,
         a.type::text AS ad_type, a.size AS ad_size
    FROM ads a JOIN campaigns c ON c.id = a.campaign_id JOIN campaign_publishers cp ON cp.campaign_id = c.id JOIN sites s ON s.publisher_id = cp.publisher_id`);
const adCount = Number((await pool.query("SELECT count(*) AS n FROM bench_ads")).rows[0].n);

for (let n = days; n >= 1; n--) {
  const day = addDays(today, -n);
  await createDayPartitions(new Date(`${day}T00:00:00Z`), "ad_events", { daysAhead: 0 });
  const batches = Math.ceil(perDay / 2000);
  const firstBatch = clickhouse
    ? Number(
        (
          await pool.query(
            `INSERT INTO clickhouse_batches (kind, rows, first_at, last_at, attempts, shipped_at)
             SELECT 'ad_events', 2000, $1::date, $1::date + interval '1 day' - interval '1 ms', 1, now() FROM generate_series(1, $2::int)
             RETURNING id`,
            [day, batches],
          )
        ).rows[0].id,
      )
    : null;
  await pool.query(
    `INSERT INTO ad_events (event_id, kind, status, session_id, user_id, ad_id, campaign_id, advertiser_id, publisher_id, request_id, ad_type, ad_size,
                            placement_name, context, site, spend_micros, user_agent, client_hash, created_at, clickhouse_batch)
     SELECT gen_random_uuid(), (CASE WHEN g % 20 = 0 THEN 'click' WHEN g % 10 = 0 THEN 'view' ELSE 'impression' END)::"EventKind",
            (CASE WHEN g % 16 = 0 THEN 'duplicate' ELSE 'counted' END)::"EventStatus", $1 || '-s' || (g / 4), $1 || '-u' || (g / 8),
            a.ad_id, a.campaign_id, a.advertiser_id, a.publisher_id, $1 || '-r' || g, a.ad_type::"AdType", a.ad_size, 'home-top', 'home', a.site,
            CASE WHEN g % 16 = 0 THEN 0 ELSE 1000 END,
            'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36', md5((g % 5000)::text),
            $1::date + make_interval(secs => g * 86399.0 / $2), CASE WHEN $4::bigint IS NULL THEN NULL ELSE $4::bigint + g / 2000 END
       FROM generate_series(0, $2::int - 1) AS g JOIN bench_ads a ON a.i = g % $3`,
    [day, perDay, adCount, firstBatch],
  );
  await pool.query(
    `INSERT INTO campaign_daily_spend (campaign_id, day, spend_micros)
     SELECT campaign_id, $1::date, sum(spend_micros) FROM ad_events WHERE created_at >= $1::date AND created_at < $1::date + 1 GROUP BY campaign_id
     ON CONFLICT (campaign_id, day) DO UPDATE SET spend_micros = EXCLUDED.spend_micros`,
    [day],
  );
  if (!clickhouse) await store().rollups.rebuild(day, day);
  if (n % 10 === 0 || n === 1) {
    await upkeep(new Date());
    say(`${days - n + 1} of ${days} days generated`);
  }
}
await pool.query("DROP TABLE bench_ads");
await pool.query("VACUUM ANALYZE");
const { rows } = await pool.query<{ size: string; events: string; batches: string }>(
  "SELECT pg_database_size(current_database())::text AS size, (SELECT count(*) FROM ad_events)::text AS events, (SELECT count(*) FROM clickhouse_batches)::text AS batches",
);
console.log(
  JSON.stringify({
    bytes: Number(rows[0]!.size),
    eventsKept: Number(rows[0]!.events),
    outboxRows: Number(rows[0]!.batches),
    seconds: (Date.now() - started) / 1000,
  }),
);
await pool.end();
