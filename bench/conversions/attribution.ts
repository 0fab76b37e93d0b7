// Part 2 of `npm run bench:conversions`: attribution of generated orders over generated events,
// timed, then every attribution and every line left without one checked against the rules.
import pg from "pg";
import { log } from "../lib/stack";
import { ATTRIBUTION_ORDER_PREFIX, loadDataset } from "./dataset";
import { df, diskAtStart, diskUsed, gb } from "./disk";

export interface AttributionFigures {
  orders: number;
  items: number;
  attributedOrders: number;
  seconds: number;
  ordersPerSecond: number;
  pending: number;
  attributions: number;
  distinctItems: number;
  invalid: number;
  missed: number;
  loadSeconds: number;
}

// A touch's window: a click's is its campaign's click window, a view's (or an impression's) its
// view window, each the campaign's own or its type's (docs/conversions.md, "Windows"); an
// impression earns nothing when the type takes viewable views only.
const WINDOW = `make_interval(secs => CASE WHEN e.kind = 'click' THEN coalesce(k.click_window_seconds, w.click_window_seconds, 1209600)
                                      ELSE coalesce(k.view_window_seconds, w.view_window_seconds, 1209600) END)`;
const MAY_EARN = `(e.kind <> 'impression' OR coalesce(w.view_through::text, 'views_and_impressions') = 'views_and_impressions')`;

// An attribution breaks the rules when its touch is not a counted event of the order's
// publisher by the same shopper inside its window, or its campaign does not sell the line's SKU
// (a halo line: its advertiser is not the one the publisher's catalogue gives the SKU).
const INVALID_SQL = `
SELECT count(*)::int AS invalid FROM attributions a
  JOIN conversions c ON c.event_id = a.conversion_id
  CROSS JOIN LATERAL (SELECT c.items -> a.item_position ->> 'sku' AS sku) i
  JOIN ad_events e ON e.event_id = a.event_id
  JOIN campaigns k ON k.id = e.campaign_id
  LEFT JOIN attribution_windows w ON w.campaign_type = k.type
 WHERE c.order_id LIKE $1
   AND (e.status <> 'counted' OR e.publisher_id <> c.publisher_id OR i.sku IS NULL OR a.product_sku <> i.sku
        OR e.created_at > c.placed_at OR e.created_at < c.placed_at - ${WINDOW} OR NOT ${MAY_EARN}
        OR NOT (e.user_id = c.user_id OR (e.user_id IS NULL AND e.session_id = c.session_id))
        OR (a.match = 'sku' AND NOT EXISTS (SELECT 1 FROM campaign_products cp JOIN products p ON p.id = cp.product_ref
                                             WHERE cp.campaign_id = e.campaign_id AND p.sku = i.sku))
        OR (a.match = 'halo' AND NOT EXISTS (SELECT 1 FROM publisher_catalogue pc
                                              WHERE pc.publisher_id = c.publisher_id AND pc.sku = i.sku AND pc.advertiser_id = e.advertiser_id)))`;

// A line left without an attribution although a touch qualifies for it.
const TOUCH = (match: string) => `EXISTS (
    SELECT 1 FROM ad_events e
      JOIN campaigns k ON k.id = e.campaign_id
      LEFT JOIN attribution_windows w ON w.campaign_type = k.type
     WHERE ${match} AND e.status = 'counted' AND e.publisher_id = c.publisher_id
       AND e.created_at <= c.placed_at AND e.created_at >= c.placed_at - ${WINDOW} AND ${MAY_EARN}
       AND EXISTS (SELECT 1 FROM campaign_products cp JOIN products p ON p.id = cp.product_ref
                    WHERE cp.campaign_id = e.campaign_id AND p.sku = i.sku))`;
const MISSED_SQL = `
SELECT count(*)::int AS missed
  FROM conversions c CROSS JOIN LATERAL jsonb_array_elements(c.items) WITH ORDINALITY AS line(value, ordinal)
  CROSS JOIN LATERAL (SELECT line.value ->> 'sku' AS sku) i
 WHERE c.order_id LIKE $1
   AND NOT EXISTS (SELECT 1 FROM attributions a WHERE a.conversion_id = c.event_id AND a.item_position = line.ordinal - 1)
   AND (${TOUCH("e.user_id = c.user_id")} OR ${TOUCH("e.session_id = c.session_id AND e.user_id IS NULL")})`;

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the attribution statement for the first 2,000 orders waiting, in a
 * transaction that is rolled back (the same text and values attributeBatch sends).
 */
async function explainOneBatch(): Promise<void> {
  const { pgPool } = await import("@/server/db/pg-pool");
  const { attributeSql } = await import("@/server/store/postgres/attribute-batch.sql");
  const client = await pgPool().connect();
  try {
    await client.query("BEGIN");
    const { rows: waiting } = await client.query<{ event_id: string }>(
      "SELECT event_id::text FROM conversions WHERE attributed_at IS NULL ORDER BY received_at LIMIT 2000 FOR UPDATE",
    );
    const statement = attributeSql(
      waiting.map((row) => row.event_id),
      new Date(),
    );
    const { rows } = await client.query<{ "QUERY PLAN": string }>({ text: `EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`, values: statement.values });
    log(`EXPLAIN (ANALYZE, BUFFERS) of one batch of ${waiting.length.toLocaleString("en")} orders (rolled back):`);
    for (const row of rows) console.log(`  ${row["QUERY PLAN"]}`);
  } finally {
    await client.query("ROLLBACK");
    client.release();
  }
}

export async function attribution(url: string, size: { events: number; orders: number; shoppers: number }, explain: boolean): Promise<AttributionFigures> {
  const { events: EVENTS, orders: ORDERS, shoppers: SHOPPERS } = size;
  const { attributePendingConversions } = await import("@/server/pipeline/attribute/attribute-pending");
  const { closePgPool } = await import("@/server/db/pg-pool");

  // The intake's orders (if any) go first, untimed, so the timed run has the generated ones only.
  const drained = await attributePendingConversions({ settleMs: 0 });
  if (drained.orders > 0) log(`attributed the ${drained.orders} intake orders first (untimed)`);

  const pool = new pg.Pool({ connectionString: url, max: 2 });
  try {
    log(
      `loading ${EVENTS.toLocaleString("en")} ad events of ${SHOPPERS.toLocaleString("en")} shoppers and ${ORDERS.toLocaleString("en")} orders of 5 lines; ${df()}`,
    );
    const loadStarted = Date.now();
    await loadDataset(pool, {
      events: EVENTS,
      orders: ORDERS,
      itemsPerOrder: 5,
      shoppers: SHOPPERS,
      chunk: 1_000_000,
      workers: 2,
      now: new Date(),
      progress: (line) => log(`${line}; disk +${gb(diskUsed() - diskAtStart)}`),
    });
    const loadSeconds = (Date.now() - loadStarted) / 1000;
    const {
      rows: [size],
    } = await pool.query("SELECT pg_size_pretty(pg_database_size(current_database())) AS size");
    log(`loaded in ${loadSeconds.toFixed(0)} s; database ${size.size}; ${df()}`);

    if (explain) await explainOneBatch();
    log("attributing (settleMs 0) until the queue is empty");
    let batches = 0;
    let sofar = 0;
    const started = performance.now();
    const total = await attributePendingConversions({
      settleMs: 0,
      onBatch: (batch) => {
        batches += 1;
        sofar += batch.orders;
        if (batches % 10 === 0) log(`  ${sofar.toLocaleString("en")} orders, ${((performance.now() - started) / 1000).toFixed(1)} s`);
      },
    });
    const elapsed = (performance.now() - started) / 1000;

    const {
      rows: [counts],
    } = await pool.query(
      `SELECT (SELECT count(*) FROM conversions WHERE attributed_at IS NULL)::int AS pending,
              (SELECT count(*) FROM attributions)::int AS attributions,
              (SELECT count(DISTINCT (conversion_id, item_position)) FROM attributions)::int AS distinct_items`,
    );
    const checkStarted = Date.now();
    const pattern = `${ATTRIBUTION_ORDER_PREFIX}-%`;
    const invalid = (await pool.query(INVALID_SQL, [pattern])).rows[0].invalid as number;
    const missed = (await pool.query(MISSED_SQL, [pattern])).rows[0].missed as number;
    log(`checked every attribution and every line left without one in ${((Date.now() - checkStarted) / 1000).toFixed(1)} s`);
    return {
      ...total,
      seconds: elapsed,
      ordersPerSecond: total.orders / elapsed,
      pending: counts.pending,
      attributions: counts.attributions,
      distinctItems: counts.distinct_items,
      invalid,
      missed,
      loadSeconds,
    };
  } finally {
    await pool.end();
    await closePgPool();
  }
}
