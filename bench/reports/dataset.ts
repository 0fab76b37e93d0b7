// The report benchmark's data, generated inside Postgres (INSERT ... SELECT over
// generate_series, no round trip per row):
//   - a network of 10 sub-publishers and 6 direct publishers, one site each;
//   - a large advertiser ("badv-large", 25% of the events): 20 campaigns of 10 ads, 5 of them
//     bought through the network, the others on two direct publishers each;
//   - a catalogue advertiser ("badv-catalogue", 20% of the events): 15 campaigns of 100 ads (a
//     sponsored-product ad per SKU), 3 of them through the network; its detailed ad report over
//     30 days is the 100,000-row download;
//   - 19 other advertisers with 5 campaigns of 3 ads (55% of the events);
//   - ad events over the last 30 days: 85% impressions, 10% views, 5% clicks; 90% counted, 6%
//     duplicates, 4% bots;
//   - orders for 8% of the counted clicks, each with one line credited to that click;
//   - daily_rollups recounted from those rows, as the writers would have kept them.
import type pg from "pg";

export const LARGE_ADVERTISER = "badv-large";
export const CATALOGUE_ADVERTISER = "badv-catalogue";
export const NETWORK = "bnet";
export const LARGE_PUBLISHER = "bpub-1";
/** The large advertiser's zone, kept from the first seeded day (seed.ts): the zoned reads of bench:reports. */
export const ZONED_READS = "America/Sao_Paulo";

const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36";

// Accounts, campaigns, ads and products. updated_at has no default in the schema (Prisma sets it).
const SHAPE_SQL = `
INSERT INTO accounts (id, kind, name, wallet_balance_micros, updated_at)
VALUES ('${NETWORK}', 'network', 'Bench Network', 0, now());
INSERT INTO accounts (id, kind, name, network_id, wallet_balance_micros, updated_at)
SELECT 'bsub-' || lpad(i::text, 2, '0'), 'publisher', 'Bench Sub-publisher ' || i, '${NETWORK}', 0, now() FROM generate_series(1, 10) i;
INSERT INTO accounts (id, kind, name, wallet_balance_micros, updated_at)
SELECT 'bpub-' || i, 'publisher', 'Bench Publisher ' || i, 0, now() FROM generate_series(1, 6) i;
INSERT INTO sites (id, publisher_id, name, domain)
SELECT 'site-' || id, id, id || '.example', id || '.example' FROM accounts WHERE id LIKE 'bsub-%' OR id LIKE 'bpub-%';
INSERT INTO accounts (id, kind, name, seller_id, wallet_balance_micros, daily_budget_micros, updated_at)
VALUES ('${LARGE_ADVERTISER}', 'advertiser', 'Large Brand', 'seller-large', 1000000000000, 50000000000, now()),
       ('${CATALOGUE_ADVERTISER}', 'advertiser', 'Catalogue Seller', 'seller-catalogue', 1000000000000, NULL, now());
INSERT INTO accounts (id, kind, name, seller_id, wallet_balance_micros, updated_at)
SELECT 'badv-' || lpad(i::text, 2, '0'), 'advertiser', 'Bench Brand ' || i, 'seller-' || i, 100000000000, now() FROM generate_series(1, 19) i;

INSERT INTO campaigns (id, advertiser_id, name, type, status, start_date, bid_model, bid_micros, updated_at)
SELECT 'bcmp-large-' || lpad(i::text, 3, '0'), '${LARGE_ADVERTISER}', 'Large Brand campaign ' || i,
       (CASE WHEN i % 2 = 0 THEN 'product' ELSE 'display' END)::"CampaignType", 'active', current_date - 60,
       (CASE WHEN i % 2 = 0 THEN 'cpc' ELSE 'cpm' END)::"BidModel", CASE WHEN i % 2 = 0 THEN 400000 ELSE 6000000 END, now()
  FROM generate_series(1, 20) i;
INSERT INTO campaigns (id, advertiser_id, name, type, status, start_date, bid_model, bid_micros, updated_at)
SELECT 'bcmp-catalogue-' || lpad(i::text, 2, '0'), '${CATALOGUE_ADVERTISER}', 'Catalogue campaign ' || i, 'product', 'active', current_date - 60, 'cpc', 300000, now()
  FROM generate_series(1, 15) i;
INSERT INTO campaigns (id, advertiser_id, name, type, status, start_date, bid_model, bid_micros, updated_at)
SELECT 'bcmp-' || lpad(a::text, 2, '0') || '-' || c, 'badv-' || lpad(a::text, 2, '0'), 'Brand ' || a || ' campaign ' || c,
       (CASE WHEN c % 2 = 0 THEN 'product' ELSE 'display' END)::"CampaignType", 'active', current_date - 60,
       (CASE WHEN c % 2 = 0 THEN 'cpc' ELSE 'cpm' END)::"BidModel", CASE WHEN c % 2 = 0 THEN 250000 ELSE 4000000 END, now()
  FROM generate_series(1, 19) a, generate_series(1, 5) c;

INSERT INTO campaign_publishers (campaign_id, publisher_id)
SELECT 'bcmp-large-' || lpad(i::text, 3, '0'), '${NETWORK}' FROM generate_series(1, 5) i
UNION ALL
SELECT 'bcmp-large-' || lpad(i::text, 3, '0'), 'bpub-' || (i % 6 + 1) FROM generate_series(6, 20) i
UNION ALL
SELECT 'bcmp-large-' || lpad(i::text, 3, '0'), 'bpub-' || ((i + 1) % 6 + 1) FROM generate_series(6, 20) i
UNION ALL
SELECT 'bcmp-catalogue-' || lpad(i::text, 2, '0'), '${NETWORK}' FROM generate_series(1, 3) i
UNION ALL
SELECT 'bcmp-catalogue-' || lpad(i::text, 2, '0'), 'bpub-' || (i % 6 + 1) FROM generate_series(4, 15) i
UNION ALL
SELECT 'bcmp-catalogue-' || lpad(i::text, 2, '0'), 'bpub-' || ((i + 1) % 6 + 1) FROM generate_series(4, 15) i
UNION ALL
SELECT 'bcmp-' || lpad(a::text, 2, '0') || '-1', '${NETWORK}' FROM generate_series(1, 19) a
UNION ALL
SELECT 'bcmp-' || lpad(a::text, 2, '0') || '-' || c, 'bpub-' || ((a + c) % 6 + 1) FROM generate_series(1, 19) a, generate_series(2, 5) c
UNION ALL
SELECT 'bcmp-' || lpad(a::text, 2, '0') || '-' || c, 'bpub-' || ((a + c + 1) % 6 + 1) FROM generate_series(1, 19) a, generate_series(2, 5) c;

INSERT INTO ads (id, campaign_id, name, type, size, status, updated_at)
SELECT c.id || '-ad-' || lpad(j::text, 3, '0'), c.id, c.name || ', ad ' || j,
       (CASE WHEN c.type = 'product' THEN 'product' ELSE 'banner' END)::"AdType", CASE WHEN c.type = 'product' THEN NULL ELSE '300x250' END, 'active', now()
  FROM campaigns c, generate_series(1, CASE c.advertiser_id WHEN '${LARGE_ADVERTISER}' THEN 10 WHEN '${CATALOGUE_ADVERTISER}' THEN 100 ELSE 3 END) j
 WHERE c.id LIKE 'bcmp-%';

INSERT INTO products (id, advertiser_id, sku, name)
SELECT 'bprod-' || a.id, c.advertiser_id, 'SKU-' || a.id, 'Product of ' || a.name
  FROM ads a JOIN campaigns c ON c.id = a.campaign_id WHERE c.id LIKE 'bcmp-%' AND c.type = 'product';
INSERT INTO campaign_products (campaign_id, product_ref)
SELECT a.campaign_id, 'bprod-' || a.id FROM ads a JOIN campaigns c ON c.id = a.campaign_id WHERE c.id LIKE 'bcmp-%' AND c.type = 'product';

-- Where events land: one slot per ad and publisher it reaches (each sub-publisher of a network
-- it buys), numbered by advertiser group: the large advertiser's, the catalogue's, the others'.
CREATE UNLOGGED TABLE bench_slots AS
SELECT (row_number() OVER (ORDER BY x.grp, x.ad_id, x.publisher_id) - 1)::int AS slot, x.*
  FROM (SELECT a.id AS ad_id, c.id AS campaign_id, c.advertiser_id, pub.id AS publisher_id, s.name AS site, a.type AS ad_type, a.size AS ad_size,
               CASE WHEN a.type = 'product' THEN 'search-sponsored' ELSE 'home-top' END AS placement_name,
               CASE WHEN a.type = 'product' THEN 'search' ELSE 'home' END AS context,
               CASE WHEN c.bid_model = 'cpc' THEN c.bid_micros ELSE 0 END AS click_micros,
               CASE WHEN c.bid_model = 'cpm' THEN c.bid_micros / 1000 ELSE 0 END AS impression_micros,
               CASE c.advertiser_id WHEN '${LARGE_ADVERTISER}' THEN 0 WHEN '${CATALOGUE_ADVERTISER}' THEN 1 ELSE 2 END AS grp
          FROM ads a
          JOIN campaigns c ON c.id = a.campaign_id
          JOIN campaign_publishers cp ON cp.campaign_id = c.id
          JOIN accounts t ON t.id = cp.publisher_id
          JOIN accounts pub ON (t.kind = 'network' AND pub.network_id = t.id) OR (t.kind <> 'network' AND pub.id = t.id)
          JOIN sites s ON s.publisher_id = pub.id
         WHERE c.id LIKE 'bcmp-%') x;
ALTER TABLE bench_slots ADD PRIMARY KEY (slot);
`;

// $1..$2: row numbers; $3: shoppers; $4: time of row 0; $5: seconds between rows; $6, $7, $8:
// how many slots the large advertiser, the catalogue advertiser and the others have (numbered in
// that order).
const EVENTS_SQL = `
INSERT INTO ad_events (event_id, kind, status, session_id, user_id, ad_id, campaign_id, advertiser_id, publisher_id,
                       request_id, ad_type, ad_size, placement_name, context, site, spend_micros, user_agent, created_at)
SELECT uuidv7(), g.kind, g.status,
       's-' || g.shopper || '-' || floor(extract(epoch FROM g.at) / 86400)::int,
       CASE WHEN g.anonymous THEN NULL ELSE 'u-' || g.shopper END,
       a.ad_id, a.campaign_id, a.advertiser_id, a.publisher_id, md5(random()::text), a.ad_type, a.ad_size, a.placement_name, a.context, a.site,
       CASE WHEN g.status <> 'counted' THEN 0 WHEN g.kind = 'click' THEN a.click_micros WHEN g.kind = 'impression' THEN a.impression_micros ELSE 0 END,
       '${CHROME}', g.at
  FROM (
    SELECT (CASE WHEN r.k < 0.85 THEN 'impression' WHEN r.k < 0.95 THEN 'view' ELSE 'click' END)::"EventKind" AS kind,
           (CASE WHEN r.s < 0.90 THEN 'counted' WHEN r.s < 0.96 THEN 'duplicate' ELSE 'bot' END)::"EventStatus" AS status,
           r.shopper, r.anonymous, r.at,
           CASE WHEN r.l < 0.25 THEN floor(random() * $6)::int
                WHEN r.l < 0.45 THEN $6 + floor(random() * $7)::int
                ELSE $6 + $7 + floor(random() * $8)::int END AS slot
      FROM (
        SELECT random() AS k, random() AS s, random() AS l, floor(random() * $3)::int AS shopper, random() < 0.15 AS anonymous,
               $4::timestamptz + make_interval(secs => (n + random()) * $5::float8) AS at
          FROM generate_series($1::int, $2::int) AS n
      ) r
  ) g
  JOIN bench_slots a ON a.slot = g.slot`;

// Secondary indexes of ad_events, dropped while loading and built once afterwards (building an
// index over 10M rows is much cheaper than maintaining it row by row). As in the migrations.
const EVENT_INDEXES = [
  `CREATE INDEX "ad_events_counted_window_idx" ON "ad_events" ("session_id", "ad_id", "kind", "created_at") WHERE "status" = 'counted'`,
  `CREATE INDEX "ad_events_counted_token_idx" ON "ad_events" ("request_id", "ad_id", "kind") WHERE "status" = 'counted'`,
  `CREATE INDEX "ad_events_counted_user_idx" ON "ad_events" ("user_id", "created_at") WHERE "status" = 'counted' AND "user_id" IS NOT NULL`,
  `CREATE INDEX "ad_events_counted_session_idx" ON "ad_events" ("session_id", "created_at") WHERE "status" = 'counted' AND "user_id" IS NULL`,
  `CREATE INDEX "ad_events_campaign_id_created_at_idx" ON "ad_events"("campaign_id", "created_at")`,
  `CREATE INDEX "ad_events_created_at_idx" ON "ad_events"("created_at")`,
];

// Orders for 8% of the counted clicks, 10 minutes after the click, one line credited to it.
const SALES_SQL = `
CREATE UNLOGGED TABLE bench_sales AS
SELECT e.*, gen_random_uuid() AS conversion_id, 'bench-report-' || row_number() OVER () AS order_id,
       coalesce(e.user_id, 'guest-' || e.session_id) AS buyer, e.created_at + interval '10 minutes' AS placed_at,
       (2 + floor(random() * 40))::bigint * 1000000 AS price_micros, 1 + floor(random() * 3)::int AS quantity
  FROM ad_events e
 WHERE e.kind = 'click' AND e.status = 'counted' AND random() < 0.08 AND e.created_at < $1::timestamptz - interval '10 minutes';
INSERT INTO conversions (event_id, publisher_id, order_id, user_id, session_id, channel, site, placed_at, email_hashed, received_at, attributed_at, items,
                         line_count, verified_by, credited)
SELECT conversion_id, publisher_id, order_id, buyer, session_id, 'web', site, placed_at,
       encode(sha256(convert_to(buyer || '@example.com', 'UTF8')), 'hex'), placed_at + interval '2 seconds', placed_at + interval '10 seconds',
       jsonb_build_array(jsonb_build_object('sku', 'SKU-' || ad_id, 'product_id', NULL, 'seller_id', NULL, 'quantity', quantity,
                                            'price_micros', price_micros, 'promotional_price_micros', price_micros)),
       1, 'api_key', true
  FROM bench_sales;
INSERT INTO order_receipts (publisher_id, order_id, conversion_id, first_received_at, verified)
SELECT publisher_id, order_id, conversion_id, placed_at + interval '2 seconds', true FROM bench_sales;
INSERT INTO attributions (conversion_id, conversion_received_at, verified, credited, item_position, publisher_id, order_id, session_id, user_id, product_sku, event_id, event_kind,
                          ad_id, campaign_id, advertiser_id, request_id, ad_size, ad_type, placement_name, context, site,
                          event_created_at, placed_at, price_micros, promotional_price_micros, quantity, total_value_micros)
SELECT conversion_id, placed_at + interval '2 seconds', true, true, 0, publisher_id, order_id, session_id, buyer, 'SKU-' || ad_id, event_id, 'click',
       ad_id, campaign_id, advertiser_id, request_id, ad_size, ad_type, placement_name, context, site,
       created_at, placed_at, price_micros, price_micros, quantity, price_micros * quantity
  FROM bench_sales;
DROP TABLE bench_sales`;

export interface ReportDatasetOptions {
  events: number;
  /** The first day of events (UTC midnight); events run from there to `now`. */
  firstDay: string;
  now: Date;
  /** Rows per INSERT statement; statements run on `workers` connections at once. */
  chunk: number;
  workers: number;
  progress: (line: string) => void;
}

const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

export async function loadReportDataset(pool: pg.Pool, options: ReportDatasetOptions): Promise<void> {
  const { events, chunk, progress } = options;
  let started = Date.now();
  await pool.query(SHAPE_SQL);
  const { rows } = await pool.query<{ large: number; catalogue: number; other: number; campaigns: number; ads: number }>(
    `SELECT count(*) FILTER (WHERE grp = 0)::int AS large, count(*) FILTER (WHERE grp = 1)::int AS catalogue, count(*) FILTER (WHERE grp = 2)::int AS other,
            (SELECT count(*)::int FROM campaigns) AS campaigns, (SELECT count(*)::int FROM ads) AS ads FROM bench_slots`,
  );
  const slots = rows[0]!;
  progress(
    `accounts, ${slots.campaigns} campaigns, ${slots.ads.toLocaleString("en")} ads; ad × publisher slots: ${slots.large.toLocaleString("en")} of the large advertiser, ${slots.catalogue.toLocaleString("en")} of the catalogue advertiser, ${slots.other.toLocaleString("en")} of the others (${seconds(started)})`,
  );

  await pool.query(
    `DROP INDEX ${EVENT_INDEXES.map((sql) => /"([^"]+_idx)"/.exec(sql)![1])
      .map((name) => `"${name}"`)
      .join(", ")}`,
  );
  started = Date.now();
  const start = new Date(`${options.firstDay}T00:00:00Z`);
  const spacing = (options.now.getTime() - start.getTime()) / 1000 / events;
  let nextStart = 0;
  let loaded = 0;
  const worker = async () => {
    const client = await pool.connect();
    try {
      await client.query("SET synchronous_commit = off");
      while (nextStart < events) {
        const from = nextStart;
        const to = Math.min(events - 1, from + chunk - 1);
        nextStart = to + 1;
        await client.query(EVENTS_SQL, [from, to, Math.max(1000, Math.round(events / 10)), start, spacing, slots.large, slots.catalogue, slots.other]);
        loaded += to - from + 1;
        const elapsed = (Date.now() - started) / 1000;
        progress(
          `ad_events: ${loaded.toLocaleString("en")} / ${events.toLocaleString("en")} rows, ${elapsed.toFixed(0)} s, ${Math.round(loaded / elapsed).toLocaleString("en")} rows/s`,
        );
      }
    } finally {
      client.release();
    }
  };
  await Promise.all(Array.from({ length: options.workers }, worker));

  started = Date.now();
  // As many at once as the loading workers had connections: more would wait past the pool's timeout.
  const indexes = [...EVENT_INDEXES];
  const builder = async () => {
    for (let sql = indexes.shift(); sql !== undefined; sql = indexes.shift()) await pool.query(sql);
  };
  await Promise.all(Array.from({ length: options.workers }, builder));
  progress(`ad_events indexes built (${seconds(started)})`);

  started = Date.now();
  for (const statement of SALES_SQL.split(";\n")) await pool.query(statement, statement.includes("$1") ? [options.now] : []);
  const { rows: sales } = await pool.query<{ orders: number }>("SELECT count(*)::int AS orders FROM conversions WHERE order_id LIKE 'bench-report-%'");
  progress(`orders: ${sales[0]!.orders.toLocaleString("en")}, each with one line credited to a click (${seconds(started)})`);
  await pool.query("DROP TABLE bench_slots");
}
