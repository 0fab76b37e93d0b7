// Hand-written SQL: attribution is a set operation over a batch of orders and the ad events of
// their shoppers. One transaction takes the batch (its rows locked, so workers never share an
// order; bounded in orders and in order lines), and one statement finds every item's winning
// touch, writes the attributions and marks the orders done. An order that makes that statement
// fail, whatever the failure (its data, a statement past its time: src/server/db/failures.ts), is
// found by halving the batch under savepoints until it stands alone
// (src/server/db/isolate-failures.ts); it is set aside with the reason, and every other order of
// the batch is attributed.
import type pg from "pg";
import sql, { raw, type Sql } from "sql-template-tag";
import { env } from "@/env";
import { failureReason } from "@/server/db/failures";
import { isolateFailures } from "@/server/db/isolate-failures";
import { prepared } from "@/server/db/prepared";
import { inTransaction } from "@/server/db/transaction";
import { type AttributedBatch, type AttributionCounts, DEFAULT_WINDOW_SECONDS } from "@/server/store/conversion-rows";
import { withKnownZones } from "@/server/store/unknown-zones.sql";
import { creditUpserts } from "./rollup-upserts.sql";
import { OUTBOX_BATCH, type ReportRowsTarget } from "./settle-beacons.sql";

// Attributions written by the statement join the report rows (store/postgres/rollup-upserts.sql.ts) in the same
// transaction, on the day the order was placed. Every order is attributed, verified or not, so an
// unverified order's items are kept and counted apart (credited or not: the order's `credited`).
// A fixed fragment built from the list of report tables (no values): raw() is safe here.
const CREDIT_UPSERTS = creditUpserts();

// With ClickHouse as the store, the attributions carry an outbox batch id instead (settle-beacons.sql.ts).
const ATTRIBUTION_OUTBOX_ROW = `outbox AS (
  INSERT INTO clickhouse_batches (id, kind, rows, first_at, last_at, rows_created_from)
  SELECT (SELECT id FROM outbox_id), 'attributions', count(*), min(conversion_received_at), max(conversion_received_at), min(created_at)
    FROM attributed HAVING count(*) > 0
)`;

// - batch: the orders of `ids`, taken and locked by attributeBatch.
// - shopper_keys, bought, bought_before, purchases: new-to-brand. A credited order's shopper is
//   known by two keys (user id, hashed e-mail); it bought the brands owning its lines' SKUs (the
//   publisher's catalogue, else the advertisers whose products have the SKU). A brand was bought
//   before when brand_purchases holds a purchase of it by either key inside the look-back (first
//   before the order, last inside the look-back: an order attributed after a later one still
//   sees it), or an earlier order of the batch did. The batch's purchases are then added, in key
//   order. Orders of one shopper attributed by two workers at once may both read as new.
// - longest: how far back any touch may count: the longest click or view window of a campaign
//   type or of a campaign of its own (pipeline/attribute/attribution-windows.ts).
// - touches: counted ad events of the order's publisher by the same shopper, up to the longest
//   window before the order, the latest MAX_TOUCHES_PER_ORDER of each branch. "Same shopper" is
//   user_id where the event has one (every order has one), else session_id; the two branches are
//   separate so each uses its own partial index of counted events (prisma/hand-written.sql): what
//   a client sent that was not counted never lengthens them, and however many counted touches one
//   shopper gathers, an order reads no more than the cap.
// - eligible: the touches inside their own windows: a click inside its campaign's click window,
//   a view (and an impression, unless the type takes views only) inside its view window; the
//   campaign's own window where it has one, else its type's. Tested once per touch: tested per
//   touch and line, the windows cost a quarter of the batch's time (bench:conversions).
// - lines: the order lines (conversions.items) of orders that have any eligible touch at all.
// - winners: per line, eligible touches of campaigns whose products include the item's SKU (or
//   its product_id, when given). A click beats a view, a view an impression; the latest wins
//   within a class; the event id settles exact ties. A line whose SKU (else product id) the
//   publisher's catalogue lists goes only to that advertiser's touches.
// - halo: per line the catalogue gives an owner and no campaign's touch won for its SKU, the
//   owner's eligible touches of any of its campaigns, in the same order: credited as halo,
//   counted only in the halo figures (store/postgres/rollup-tables.sql.ts).
// An item that already has an attribution keeps it (ON CONFLICT DO NOTHING): running a batch
// again changes nothing.
// Exported for `npm run bench:conversions -- --explain`, which shows its plan for one batch.
// Over 80 lines on purpose: one statement, its steps in the order above.
export const attributeSql = (ids: readonly string[], now: Date, target: ReportRowsTarget = "rollups", lookBack = newToBrandLookBack()): Sql => sql`
WITH ${raw(target === "outbox" ? `${OUTBOX_BATCH}, ` : "")}batch AS (
  SELECT event_id, received_at, publisher_id, user_id, session_id, order_id, placed_at, items, verified_by IS NOT NULL AS verified, credited,
         email_hashed
    FROM conversions
   WHERE event_id = ANY(${ids}::uuid[])
), shopper_keys AS (
  SELECT b.event_id AS conversion_id, b.publisher_id, b.placed_at, k.shopper
    FROM batch b CROSS JOIN LATERAL (VALUES ('user:' || b.user_id), ('email:' || b.email_hashed)) AS k(shopper)
   WHERE b.credited
), bought AS (
  -- Joined rather than looked up per line, so the planner can hash the catalogue and the products.
  SELECT DISTINCT b.event_id AS conversion_id, coalesce(pc.advertiser_id, p.advertiser_id) AS advertiser_id
    FROM batch b
    CROSS JOIN LATERAL jsonb_to_recordset(b.items) AS i(sku text)
    LEFT JOIN publisher_catalogue pc ON pc.publisher_id = b.publisher_id AND pc.sku = i.sku
    LEFT JOIN products p ON pc.advertiser_id IS NULL AND p.sku = i.sku
   WHERE b.credited AND coalesce(pc.advertiser_id, p.advertiser_id) IS NOT NULL
), bought_before AS (
  -- Looked up per shopper key (LATERAL, OFFSET 0 so the planner keeps it a look-up): joined whole,
  -- the planner merged the batch's keys with every row of brand_purchases, a read that grew with
  -- every shopper ever seen.
  SELECT k.conversion_id, bp.advertiser_id
    FROM shopper_keys k
    CROSS JOIN LATERAL (
      SELECT p.advertiser_id FROM brand_purchases p
       WHERE p.publisher_id = k.publisher_id AND p.shopper = k.shopper
         AND p.first_purchased_at < k.placed_at AND p.last_purchased_at >= k.placed_at - ${lookBack}::interval
      OFFSET 0
    ) bp
  UNION
  SELECT k.conversion_id, o.advertiser_id
    FROM shopper_keys k
    JOIN shopper_keys earlier ON earlier.publisher_id = k.publisher_id AND earlier.shopper = k.shopper
                             AND earlier.placed_at < k.placed_at AND earlier.placed_at >= k.placed_at - ${lookBack}::interval
    JOIN bought o ON o.conversion_id = earlier.conversion_id
), purchases AS (
  INSERT INTO brand_purchases AS bp (publisher_id, advertiser_id, shopper, first_purchased_at, last_purchased_at)
  SELECT k.publisher_id, o.advertiser_id, k.shopper, min(k.placed_at), max(k.placed_at)
    FROM bought o JOIN shopper_keys k USING (conversion_id)
   GROUP BY 1, 2, 3
   ORDER BY 1, 3, 2
  ON CONFLICT (publisher_id, shopper, advertiser_id) DO UPDATE
     SET first_purchased_at = least(bp.first_purchased_at, EXCLUDED.first_purchased_at),
         last_purchased_at = greatest(bp.last_purchased_at, EXCLUDED.last_purchased_at)
), longest AS (
  SELECT make_interval(secs => greatest(
           (SELECT coalesce(max(greatest(click_window_seconds, view_window_seconds)), 0) FROM attribution_windows),
           (SELECT coalesce(max(greatest(coalesce(click_window_seconds, 0), coalesce(view_window_seconds, 0))), 0) FROM campaigns
             WHERE click_window_seconds IS NOT NULL OR view_window_seconds IS NOT NULL),
           ${DEFAULT_WINDOW_SECONDS})) AS span
), touches AS (
  SELECT b.event_id AS conversion_id, b.placed_at, e.*
    FROM batch b CROSS JOIN longest
    CROSS JOIN LATERAL (
      (SELECT * FROM ad_events e
        WHERE e.user_id = b.user_id AND e.status = 'counted' AND e.publisher_id = b.publisher_id
          AND e.created_at <= b.placed_at AND e.created_at >= b.placed_at - longest.span
        ORDER BY e.created_at DESC
        LIMIT ${MAX_TOUCHES_PER_ORDER})
      UNION ALL
      (SELECT * FROM ad_events e
        WHERE e.session_id = b.session_id AND e.user_id IS NULL AND e.status = 'counted' AND e.publisher_id = b.publisher_id
          AND e.created_at <= b.placed_at AND e.created_at >= b.placed_at - longest.span
        ORDER BY e.created_at DESC
        LIMIT ${MAX_TOUCHES_PER_ORDER})
    ) e
), eligible AS (
  -- Each touch against its own window, once per touch rather than once per touch and line.
  SELECT t.* FROM touches t
    JOIN campaigns c ON c.id = t.campaign_id
    LEFT JOIN attribution_windows w ON w.campaign_type = c.type
   WHERE CASE WHEN t.kind = 'click'
              THEN t.created_at >= t.placed_at - make_interval(secs => coalesce(c.click_window_seconds, w.click_window_seconds, ${DEFAULT_WINDOW_SECONDS}))
              WHEN t.kind = 'view' OR coalesce(w.view_through, 'views_and_impressions') = 'views_and_impressions'
              THEN t.created_at >= t.placed_at - make_interval(secs => coalesce(c.view_window_seconds, w.view_window_seconds, ${DEFAULT_WINDOW_SECONDS}))
              ELSE false END
), lines AS (
  SELECT b.event_id AS conversion_id, i.*, coalesce(by_sku.advertiser_id, by_product.advertiser_id) AS owner_id
    FROM batch b
    CROSS JOIN LATERAL ROWS FROM (
      jsonb_to_recordset(b.items) AS (sku text, product_id text, quantity float8, price_micros bigint, promotional_price_micros bigint)
    ) WITH ORDINALITY AS i(sku, product_id, quantity, price_micros, promotional_price_micros, ordinal)
    -- Joined rather than looked up per line in a subquery: with an empty or small catalogue the
    -- planner hashes it once (measured: the per-line subqueries cost 12% of the batch).
    LEFT JOIN publisher_catalogue by_sku ON by_sku.publisher_id = b.publisher_id AND by_sku.sku = i.sku
    LEFT JOIN LATERAL (SELECT pc.advertiser_id FROM publisher_catalogue pc WHERE pc.publisher_id = b.publisher_id AND pc.product_id = i.product_id LIMIT 1) by_product
           ON by_sku.advertiser_id IS NULL
   WHERE EXISTS (SELECT 1 FROM eligible t WHERE t.conversion_id = b.event_id)
), winners AS (
  SELECT DISTINCT ON (i.conversion_id, i.ordinal)
         i.conversion_id, i.ordinal - 1 AS item_position, i.sku, i.quantity, i.price_micros, i.promotional_price_micros,
         t.event_id, t.kind, t.ad_id, t.campaign_id, t.advertiser_id, t.request_id, t.ad_size, t.ad_type,
         t.placement_name, t.context, t.search_term, t.category, t.site, t.created_at AS event_created_at
    FROM lines i
    JOIN eligible t ON t.conversion_id = i.conversion_id
   WHERE (i.owner_id IS NULL OR t.advertiser_id = i.owner_id)
     AND EXISTS (SELECT 1 FROM campaign_products cp JOIN products p ON p.id = cp.product_ref
                  WHERE cp.campaign_id = t.campaign_id
                    AND (p.sku = i.sku OR (i.product_id IS NOT NULL AND p.product_id = i.product_id)))
   ORDER BY i.conversion_id, i.ordinal, CASE t.kind WHEN 'click' THEN 0 WHEN 'view' THEN 1 ELSE 2 END, t.created_at DESC, t.event_id DESC
), halo AS (
  SELECT DISTINCT ON (i.conversion_id, i.ordinal)
         i.conversion_id, i.ordinal - 1 AS item_position, i.sku, i.quantity, i.price_micros, i.promotional_price_micros,
         t.event_id, t.kind, t.ad_id, t.campaign_id, t.advertiser_id, t.request_id, t.ad_size, t.ad_type,
         t.placement_name, t.context, t.search_term, t.category, t.site, t.created_at AS event_created_at
    FROM lines i
    JOIN eligible t ON t.conversion_id = i.conversion_id AND t.advertiser_id = i.owner_id
   WHERE NOT EXISTS (SELECT 1 FROM winners w WHERE w.conversion_id = i.conversion_id AND w.item_position = i.ordinal - 1)
   ORDER BY i.conversion_id, i.ordinal, CASE t.kind WHEN 'click' THEN 0 WHEN 'view' THEN 1 ELSE 2 END, t.created_at DESC, t.event_id DESC
), credited_lines AS (
  SELECT w.*, 'sku'::"AttributionMatch" AS match FROM winners w
  UNION ALL
  SELECT h.*, 'halo'::"AttributionMatch" FROM halo h
), attributed AS (
  INSERT INTO attributions (conversion_id, conversion_received_at, item_position, publisher_id, order_id, session_id, user_id,
                            product_sku, event_id, event_kind, ad_id, campaign_id, advertiser_id, request_id,
                            ad_size, ad_type, placement_name, context, search_term, category, site, event_created_at, placed_at,
                            price_micros, promotional_price_micros, quantity, total_value_micros, verified, credited, match, new_to_brand,
                            created_at, clickhouse_batch)
  SELECT w.conversion_id, b.received_at, w.item_position, b.publisher_id, b.order_id, b.session_id, b.user_id,
         w.sku, w.event_id, w.kind, w.ad_id, w.campaign_id, w.advertiser_id, w.request_id,
         w.ad_size, w.ad_type, w.placement_name, w.context, w.search_term, w.category, w.site, w.event_created_at, b.placed_at,
         w.price_micros, w.promotional_price_micros, w.quantity,
         round(w.promotional_price_micros * w.quantity::numeric)::bigint, b.verified, b.credited, w.match,
         w.match = 'sku' AND b.credited AND prior.conversion_id IS NULL,
         ${now},
         ${raw(target === "outbox" ? "(SELECT id FROM outbox_id)" : "NULL::bigint")}
    FROM credited_lines w JOIN batch b ON b.event_id = w.conversion_id
    -- A join, not a NOT EXISTS per line in the select list: that one rescanned bought_before for
    -- every line, which made a batch several times slower (bench/results.md, "Credit kinds").
    LEFT JOIN (SELECT DISTINCT conversion_id, advertiser_id FROM bought_before) prior
           ON prior.conversion_id = w.conversion_id AND prior.advertiser_id = w.advertiser_id
  ON CONFLICT (conversion_id, item_position, conversion_received_at) DO NOTHING
  RETURNING conversion_id, conversion_received_at, created_at, placed_at, publisher_id, site, advertiser_id, campaign_id, ad_id, placement_name,
            total_value_micros, quantity, verified, credited, match, new_to_brand, event_id, event_kind, event_created_at
), ${raw(target === "outbox" ? ATTRIBUTION_OUTBOX_ROW : CREDIT_UPSERTS)}, done AS (
  UPDATE conversions c SET attributed_at = ${now} FROM batch b WHERE c.event_id = b.event_id AND c.received_at = b.received_at RETURNING c.event_id
)
SELECT (SELECT count(*) FROM done)::int AS orders,
       (SELECT count(*) FROM attributed)::int AS items,
       (SELECT count(DISTINCT conversion_id) FROM attributed)::int AS attributed_orders`;

/** How far back a purchase of a brand makes a line of it not new-to-brand, as an interval parameter. */
const newToBrandLookBack = () => `${env().TALLY_NEW_TO_BRAND_DAYS} days`;

/** The latest counted touches of one shopper an order looks at, per branch (user, anonymous session). */
export const MAX_TOUCHES_PER_ORDER = 1_000;

/**
 * The most order lines one batch takes (with orders of up to 500 lines, a batch of large orders
 * holds a few dozen): the statement's work grows with lines times touches.
 */
export const ATTRIBUTION_BATCH_LINES = 20_000;

/** The queue's first orders up to `limit` and ATTRIBUTION_BATCH_LINES lines (at least one, whatever its lines). */
export function ordersWithinLines(lineCounts: readonly number[], maxLines = ATTRIBUTION_BATCH_LINES): number {
  let lines = 0;
  for (const [i, count] of lineCounts.entries()) {
    lines += count;
    if (lines > maxLines && i > 0) return i;
  }
  return lineCounts.length;
}

/** Attributes the orders `ids` (locked by the caller's transaction) in one statement. */
async function attributeOrders(client: pg.PoolClient, ids: string[], now: Date, target: ReportRowsTarget): Promise<AttributionCounts> {
  // Not a named (prepared) statement: after five runs Postgres would keep a generic plan for
  // any array of ids, which took four times as long per batch as the plan made for the batch at
  // hand (npm run bench:conversions: 39 s against 9.4 s for 100,000 orders). Planning costs a
  // few milliseconds a batch.
  // A kept zone Postgres no longer knows fails it: withKnownZones has the zone left out from then on.
  const { rows } = await withKnownZones(() => client.query<{ orders: number; items: number; attributed_orders: number }>(attributeSql(ids, now, target)));
  const row = rows[0]!;
  return { orders: row.orders, items: row.items, attributedOrders: row.attributed_orders, setAside: 0 };
}

/**
 * Attributes up to `limit` of the oldest orders received at or before `receivedBefore` and not
 * yet attributed (and no more than ATTRIBUTION_BATCH_LINES lines of them); returns what it did
 * (orders 0 when the queue is empty). SKIP LOCKED lets several workers (the dev loop and a cron
 * call, two cron calls) share the queue without waiting on each other. An order that fails alone
 * is marked done with its reason (set aside); past the step's time, the orders handled so far are
 * committed and the rest wait in the queue.
 */
export const attributionWriter =
  (target: ReportRowsTarget) =>
  (limit: number, receivedBefore: Date, now: Date): Promise<AttributedBatch> =>
    attributeBatchTo(target, limit, receivedBefore, now);

/** Postgres as the store: attributions and their report rows, in Postgres. */
export const attributeBatch = attributionWriter("rollups");

async function attributeBatchTo(target: ReportRowsTarget, limit: number, receivedBefore: Date, now: Date): Promise<AttributedBatch> {
  return inTransaction(async (client) => {
    const { rows } = await client.query<{ event_id: string; line_count: number }>(
      prepared(
        "tally_attribution_queue",
        sql`SELECT event_id::text, line_count FROM conversions
             WHERE attributed_at IS NULL AND received_at <= ${receivedBefore}
             ORDER BY attributed_at, received_at
             LIMIT ${limit}
               FOR UPDATE SKIP LOCKED`,
      ),
    );
    if (rows.length === 0) return { orders: 0, items: 0, attributedOrders: 0, setAside: 0, more: false };
    const taken = rows.slice(0, ordersWithinLines(rows.map((row) => row.line_count)));
    const timeoutMs = env().TALLY_STEP_TIMEOUT_SECONDS * 1000;
    const outcome = await isolateFailures(
      client,
      taken.map((row) => row.event_id),
      async (ids) => [await attributeOrders(client, ids, now, target)],
      async (id, error) => {
        await client.query(
          prepared(
            "tally_attribution_set_aside",
            sql`UPDATE conversions SET attributed_at = ${now}, attribution_failed_reason = ${failureReason(error)} WHERE event_id = ${id}`,
          ),
        );
      },
      { timeoutMs, deadline: Date.now() + 4 * timeoutMs },
    );
    const counts = outcome.done.reduce<AttributionCounts>(
      (sum, part) => ({
        orders: sum.orders + part.orders,
        items: sum.items + part.items,
        attributedOrders: sum.attributedOrders + part.attributedOrders,
        setAside: sum.setAside,
      }),
      { orders: outcome.setAside, items: 0, attributedOrders: 0, setAside: outcome.setAside },
    );
    return { ...counts, more: rows.length === limit || taken.length < rows.length || outcome.handled < taken.length };
  });
}
