// The attribution benchmark's data, generated inside Postgres (INSERT ... SELECT over
// generate_series, no COPY, no round trip per row) into the tables the migrations created:
//   - ad events of ~1,000,000 shoppers over the last 30 days on the demo seed's ads: 85%
//     impressions, 10% views, 5% clicks; 90% counted, 6% duplicates, 4% bots; 15% of events
//     without a user id (the shopper had not logged in; only the session links them);
//   - orders of 5 lines placed over the last 14 days (received two seconds later, so past any
//     settle time), not yet attributed: 85% by shoppers of the events, 40% of the lines SKUs of
//     the campaigns' catalogue, the rest SKUs no campaign sells.
// The demo ads: Acme and Northwind on Demo Market, Brightsmile (a network campaign) on the
// network's two sub-publishers. Orders are 90% Demo Market, 5% each sub-publisher.
import type pg from "pg";
import { DEMO_SKUS } from "./orders";

export const ATTRIBUTION_ORDER_PREFIX = "bench-attr";

const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36";

// Each row is one tenth of the events: Demo Market's four ads 20% each, the network's two 10% each.
// Spend per counted event as the campaign bids it: CPC 0.40 and 0.25 per click, CPM 6.00 and 12.00.
const AD_SHARES = [
  ["ad_acme_beans", "cmp_acme_sponsored", "adv_acme_coffee", "pub_demo_market", "demomarket.com", "product", null, "search-sponsored", "search", 400_000, 0],
  ["ad_acme_pods", "cmp_acme_sponsored", "adv_acme_coffee", "pub_demo_market", "Demo Market App", "product", null, "search-sponsored", "search", 400_000, 0],
  ["ad_northwind_leaderboard", "cmp_northwind_display", "adv_northwind", "pub_demo_market", "demomarket.com", "banner", "728x90", "home-top", "home", 0, 6_000],
  [
    "ad_northwind_rectangle",
    "cmp_northwind_display",
    "adv_northwind",
    "pub_demo_market",
    "demomarket.com",
    "banner",
    "300x250",
    "category-side",
    "category",
    0,
    6_000,
  ],
  [
    "ad_brightsmile_spot",
    "cmp_brightsmile_video",
    "adv_brightsmile",
    "pub_corner_grocer",
    "cornergrocer.com",
    "video",
    "640x360",
    "home-video",
    "home",
    0,
    12_000,
  ],
  [
    "ad_brightsmile_paste",
    "cmp_brightsmile_shelf",
    "adv_brightsmile",
    "pub_city_pharmacy",
    "citypharmacy.com",
    "product",
    null,
    "search-sponsored",
    "search",
    250_000,
    0,
  ],
] as const;
const SLOTS = [0, 0, 1, 1, 2, 2, 3, 3, 4, 5];

const literal = (value: string | number | null) => (value === null ? "NULL" : typeof value === "number" ? String(value) : `'${value.replaceAll("'", "''")}'`);
const ADS_VALUES = SLOTS.map((ad, slot) => `(${[slot, ...AD_SHARES[ad]!].map(literal).join(", ")})`).join(",\n      ");

// $1..$2: the range of row numbers; $3: shoppers; $4: the time of row 0; $5: seconds between rows.
// Statements follow each other in time, as the collector appends events. Within one statement
// (1,000,000 rows, three days) rows are sorted by session: with 128 MB of shared buffers, inserts
// in random key order into the session and user indexes of 10M rows would each evict a page per
// row. Ids are UUIDv7 (time-ordered) for the same reason, where the collector uses v4: attribution
// never reads events by id except for the foreign key check of each attribution it writes.
const EVENTS_SQL = `
WITH ads (slot, ad_id, campaign_id, advertiser_id, publisher_id, site, ad_type, ad_size, placement_name, context, click_micros, impression_micros) AS (
  VALUES ${ADS_VALUES}
)
INSERT INTO ad_events (event_id, kind, status, session_id, user_id, ad_id, campaign_id, advertiser_id, publisher_id,
                       request_id, ad_type, ad_size, placement_name, context, site, spend_micros, user_agent, created_at)
SELECT * FROM (
  SELECT uuidv7() AS event_id, g.kind, g.status,
         's-' || g.shopper || '-' || floor(extract(epoch FROM g.at) / 86400)::int AS session_id,
         CASE WHEN g.anonymous THEN NULL ELSE 'u-' || g.shopper END AS user_id,
         a.ad_id, a.campaign_id, a.advertiser_id, a.publisher_id, md5(random()::text) AS request_id,
         a.ad_type::"AdType", a.ad_size, a.placement_name, a.context, a.site,
         CASE WHEN g.status <> 'counted' THEN 0 WHEN g.kind = 'click' THEN a.click_micros WHEN g.kind = 'impression' THEN a.impression_micros ELSE 0 END,
         '${CHROME}', g.at
    FROM (
      SELECT (CASE WHEN r.k < 0.85 THEN 'impression' WHEN r.k < 0.95 THEN 'view' ELSE 'click' END)::"EventKind" AS kind,
             (CASE WHEN r.s < 0.90 THEN 'counted' WHEN r.s < 0.96 THEN 'duplicate' ELSE 'bot' END)::"EventStatus" AS status,
             r.shopper, r.anonymous, r.slot, r.at
        FROM (
          SELECT random() AS k, random() AS s, floor(random() * $3)::int AS shopper, random() < 0.15 AS anonymous,
                 floor(random() * 10)::int AS slot, $4::timestamptz + make_interval(secs => (n + random()) * $5::float8) AS at
            FROM generate_series($1::int, $2::int) AS n
        ) r
    ) g
    JOIN ads a ON a.slot = g.slot
) e
ORDER BY e.session_id`;

// 40% of lines carry a SKU of the demo catalogue (every one of them in a campaign), the rest not.
// The reference to o.n makes the subquery run per order (uncorrelated, it would run once).
const LINES_SQL = `
(SELECT jsonb_agg(jsonb_build_object('sku', l.sku, 'product_id', NULL, 'seller_id', 'seller-1001', 'quantity', l.quantity,
                                     'price_micros', l.price_micros, 'promotional_price_micros', l.price_micros / 10 * 9)
                  ORDER BY l.position)
   FROM (SELECT p.position,
                CASE WHEN random() < 0.40 THEN (ARRAY[${DEMO_SKUS.map(literal).join(", ")}])[1 + floor(random() * ${DEMO_SKUS.length})::int]
                     ELSE 'GEN-' || floor(random() * 50000)::int END AS sku,
                1 + floor(random() * 3)::int AS quantity,
                (5 + floor(random() * 195)::bigint) * 1000000 AS price_micros
           FROM generate_series(0, $4::int - 1 + 0 * o.n) AS p(position)) l)`;

// $1: orders; $2: shoppers; $3: now; $4: lines per order.
const ORDERS_SQL = `
INSERT INTO conversions (event_id, publisher_id, order_id, user_id, session_id, channel, site, placed_at,
                         uf, city, email_hashed, received_at, items)
SELECT gen_random_uuid(), o.publisher_id, '${ATTRIBUTION_ORDER_PREFIX}-' || o.n, o.user_id,
       's-' || o.shopper || '-' || floor(extract(epoch FROM o.placed_at) / 86400)::int,
       'online store', o.site, o.placed_at, 'SP', 'São Paulo',
       encode(sha256(convert_to(o.user_id || '@example.com', 'UTF8')), 'hex'),
       o.placed_at + interval '2 seconds', ${LINES_SQL}
  FROM (
    SELECT n, shopper, 'u-' || shopper AS user_id, placed_at,
           CASE WHEN p < 0.90 THEN 'pub_demo_market' WHEN p < 0.95 THEN 'pub_corner_grocer' ELSE 'pub_city_pharmacy' END AS publisher_id,
           CASE WHEN p < 0.90 THEN 'demomarket.com' WHEN p < 0.95 THEN 'cornergrocer.com' ELSE 'citypharmacy.com' END AS site
      FROM (
        SELECT n, random() AS p,
               $3::timestamptz - interval '1 hour' - random() * interval '14 days' AS placed_at,
               CASE WHEN random() < 0.85 THEN floor(random() * $2)::int::text ELSE 'new-' || n END AS shopper
          FROM generate_series(1, $1::int) AS n
      ) r
  ) o`;

const RECEIPTS_SQL = `
INSERT INTO order_receipts (publisher_id, order_id, conversion_id, first_received_at)
SELECT publisher_id, order_id, event_id, received_at FROM conversions WHERE order_id LIKE '${ATTRIBUTION_ORDER_PREFIX}-%'`;

export interface DatasetOptions {
  events: number;
  orders: number;
  itemsPerOrder: number;
  shoppers: number;
  /** Rows per INSERT statement; statements run on `workers` connections at once. */
  chunk: number;
  workers: number;
  now: Date;
  progress: (line: string) => void;
}

export async function loadDataset(pool: pg.Pool, options: DatasetOptions): Promise<void> {
  const { events, chunk, now, progress } = options;
  const started = Date.now();
  const spacing = (30 * 86_400) / events;
  const start = new Date(now.getTime() - 30 * 86_400_000);
  // A day partition for every day the data covers, as upkeep would have made them day by day.
  const { createDayPartitions } = await import("@/server/upkeep/day-partitions.sql");
  for (const table of ["ad_events", "conversions", "attributions"] as const) {
    await createDayPartitions(new Date(start.getTime() - 86_400_000), table, { daysAhead: 32, pool });
  }
  let nextStart = 0;
  let loaded = 0;
  const worker = async () => {
    const client = await pool.connect();
    await client.query("SET work_mem = '1GB'");
    try {
      while (nextStart < events) {
        const from = nextStart;
        const to = Math.min(events - 1, from + chunk - 1);
        nextStart = to + 1;
        await client.query(EVENTS_SQL, [from, to, options.shoppers, start, spacing]);
        loaded += to - from + 1;
        const seconds = (Date.now() - started) / 1000;
        progress(
          `ad_events: ${loaded.toLocaleString("en")} / ${events.toLocaleString("en")} rows, ${seconds.toFixed(0)} s, ${Math.round(loaded / seconds).toLocaleString("en")} rows/s`,
        );
      }
    } finally {
      client.release();
    }
  };
  await Promise.all(Array.from({ length: options.workers }, worker));

  const ordersStarted = Date.now();
  await pool.query(ORDERS_SQL, [options.orders, options.shoppers, now, options.itemsPerOrder]);
  await pool.query(RECEIPTS_SQL);
  progress(
    `orders: ${options.orders.toLocaleString("en")} with ${(options.orders * options.itemsPerOrder).toLocaleString("en")} items in ${((Date.now() - ordersStarted) / 1000).toFixed(1)} s`,
  );

  const analyzeStarted = Date.now();
  await pool.query("ANALYZE ad_events, conversions, order_receipts, attributions, campaign_products, products, campaigns");
  progress(`ANALYZE in ${((Date.now() - analyzeStarted) / 1000).toFixed(1)} s`);
}
