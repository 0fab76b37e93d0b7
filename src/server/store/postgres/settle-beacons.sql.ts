// Hand-written SQL: this is the settle step of every beacon, the hottest write path behind the
// log. A worker that holds a shard's cursor (settle-shard.ts) hands the store a stretch of that
// shard's log in order, inside one transaction; settling a stretch takes three round trips:
//   1. beaconHistory: one query asks what the database already counted for the stretch's
//      (ad, session) pairs and tokens, and how many clicks each address made in the minute before
//      (from the log: every accepted click, settled or not, in accept order), for the beacons the
//      invalid-traffic rules cannot decide alone; the rules (pipeline/settle/traffic-rules.ts)
//      then decide each status from that answer;
//   2. settling prices the counted events under the advertisers' row locks
//      (pipeline/settle/spend.ts);
//   3. storeBeacons writes events, spend and rollups in one statement (data-modifying CTEs over
//      unnest arrays): wallets and daily spend are Postgres's whatever the store, and this store
//      writes them in the same statement as the events.
// Nothing else writes ad_events, and a shard's events are settled by one worker at a time, so
// decisions need no other lock. Statements are named, so Postgres plans each once per connection.
import type pg from "pg";
import sql, { raw, type Sql } from "sql-template-tag";
import type { EventStatus } from "@/server/core/event-status";
import { prepared } from "@/server/db/prepared";
import type { LoggedBeacon, PricedEvents, SettledBeacon, StoredHistory, TrafficLimits } from "@/server/store/settle-types";
import { withKnownZones } from "@/server/store/unknown-zones.sql";
import { trafficUpserts } from "./rollup-upserts.sql";

// The look-ups of beaconHistory, one row per beacon asked about (n: its index among them):
// exported for the test that holds their cost flat however long a session's history is.
//   - within_window: a counted event of the same (session, ad, kind) inside the de-duplication
//     window (ad_events_counted_window_idx: a range of the window's length);
//   - token_counted: how often this token (request, ad, kind) was counted, read up to
//     maxCountedPerToken rows (ad_events_counted_token_idx);
//   - recent_clicks: for a click, the clicks its address made in the minute before, any status,
//     among those accepted earlier (the log's order), through the log's partial index of clicks
//     by client_hash, read up to the limit that matters (clicksPerAddressPerMinute): every shard
//     sees the same count, settled or not. Other kinds skip that scan.
// Each goes through an index that matches its whole condition, so none grows with what the
// session sent before that was not counted (prisma/hand-written.sql). Scalar subqueries
// correlated to the outer row, so each is an index probe per beacon (a hashed scan of a whole
// table is what the planner chose for such tests while ad_events had no statistics on a fresh
// install).
export function historySql(beacons: readonly LoggedBeacon[], limits: TrafficLimits): Sql {
  return sql`SELECT i.n,
                  EXISTS (SELECT 1 FROM ad_events e
                           WHERE e.session_id = i.session_id AND e.ad_id = i.ad_id AND e.kind = i.kind::"EventKind" AND e.status = 'counted'
                             AND e.created_at > i.created_at - make_interval(secs => i.window_seconds)) AS within_window,
                  (SELECT count(*) FROM (
                     SELECT 1 FROM ad_events e
                      WHERE e.request_id = i.request_id AND e.ad_id = i.ad_id AND e.kind = i.kind::"EventKind" AND e.status = 'counted'
                        AND e.created_at >= i.created_at - make_interval(secs => i.token_span_seconds)
                      LIMIT ${limits.maxCountedPerToken}) AS token)::int AS token_counted,
                  CASE WHEN i.kind = 'click' AND i.client_hash IS NOT NULL THEN
                    (SELECT count(*) FROM (
                       SELECT 1 FROM beacon_log c
                        WHERE c.client_hash = i.client_hash AND c.kind = 'click'
                          AND c.event_at > i.created_at - interval '1 minute' AND c.event_at <= i.created_at
                          AND (c.accepted_xid, c.seq) < (i.accepted_xid, i.seq)
                        LIMIT ${limits.clicksPerAddressPerMinute}) AS clicks)::int
                  ELSE 0 END AS recent_clicks
       FROM unnest(${beacons.map((_, index) => index)}::int[], ${beacons.map((beacon) => beacon.claims.adId)}::text[], ${beacons.map((beacon) => beacon.sessionId)}::text[], ${beacons.map((beacon) => beacon.claims.kind)}::text[], ${beacons.map((beacon) => beacon.createdAt)}::timestamptz[], ${beacons.map((beacon) => beacon.claims.requestId)}::text[], ${beacons.map((beacon) => limits.dedupWindowSeconds[beacon.claims.kind])}::int[], ${beacons.map((beacon) => beacon.clientHash)}::text[], ${beacons.map((beacon) => beacon.acceptedXid)}::xid8[], ${beacons.map((beacon) => beacon.seq)}::bigint[], ${beacons.map((beacon) => limits.tokenSpanSeconds[beacon.claims.kind])}::int[])
            AS i(n, ad_id, session_id, kind, created_at, request_id, window_seconds, client_hash, accepted_xid, seq, token_span_seconds)`;
}

/**
 * What was stored before each of `beacons` (one answer each, in order), inside the settle
 * transaction `client`; no query when there are none.
 */
export async function beaconHistory(client: pg.PoolClient, beacons: readonly LoggedBeacon[], limits: TrafficLimits): Promise<StoredHistory[]> {
  if (beacons.length === 0) return [];
  const { rows } = await client.query<{ n: number; within_window: boolean; token_counted: number; recent_clicks: number }>(
    prepared("beacons-history", historySql(beacons, limits)),
  );
  const answers = new Map(rows.map((row) => [row.n, row]));
  return beacons.map((_, index) => {
    const row = answers.get(index)!;
    return { countedWithinWindow: row.within_window, tokenCounted: row.token_counted, recentClicks: row.recent_clicks };
  });
}

/**
 * Sums spend by advertiser, campaign-day and advertiser-day, as unnest-ready arrays; each day is
 * the advertiser's local date settling priced the event against (spend.ts), not worked out again
 * here, so the row written is the row the budget was compared with.
 */
function spendTotals(batch: readonly LoggedBeacon[], { spend, days }: PricedEvents) {
  const byAdvertiser = new Map<string, bigint>();
  const byCampaignDay = new Map<string, bigint>();
  const byAdvertiserDay = new Map<string, bigint>();
  const add = (map: Map<string, bigint>, key: string, amount: bigint) => map.set(key, (map.get(key) ?? 0n) + amount);
  batch.forEach((b, i) => {
    const amount = spend[i]!;
    if (amount === 0n) return;
    const day = days[i]!;
    add(byAdvertiser, b.claims.advertiserId, amount);
    add(byCampaignDay, `${b.claims.campaignId}\u0000${day}`, amount);
    add(byAdvertiserDay, `${b.claims.advertiserId}\u0000${day}`, amount);
  });
  const perDay = (map: Map<string, bigint>) => {
    const entries = [...map].map(([key, amount]) => [...key.split("\u0000"), String(amount)] as const);
    return [entries.map((e) => e[0]), entries.map((e) => e[1]), entries.map((e) => e[2])];
  };
  return {
    advertisers: [[...byAdvertiser.keys()], [...byAdvertiser.values()].map(String)],
    campaignDays: perDay(byCampaignDay),
    advertiserDays: perDay(byAdvertiserDay),
  };
}

// The batch's counts join the report rows (rollup-upserts.sql.ts) in the transaction that stores
// the events, so a report never counts an event twice or misses one. A fixed fragment built from
// the list of report tables (no values), so raw() is safe with it.
const TRAFFIC_UPSERTS = trafficUpserts();

/**
 * Where a stretch's counts go besides its events: the Postgres report tables, or (with ClickHouse
 * as the store) an outbox batch whose id the events carry, which the shipper sends to ClickHouse's
 * own rollups (store/clickhouse/ship-batches.ts). Postgres's rollups are then left alone.
 */
export type ReportRowsTarget = "rollups" | "outbox";

// The outbox's share of the statement: one batch id drawn once (a CTE referenced twice is
// evaluated once), the events stamped with it, and its row when the stretch has any. Attribution's
// statement draws its id the same way (attribute-batch.sql.ts).
export const OUTBOX_BATCH = "outbox_id AS MATERIALIZED (SELECT nextval(pg_get_serial_sequence('clickhouse_batches', 'id')) AS id)";
const OUTBOX_ROW = `outbox AS (
             INSERT INTO clickhouse_batches (id, kind, rows, first_at, last_at, rows_created_from)
             SELECT (SELECT id FROM outbox_id), 'ad_events', count(*), min(created_at), max(created_at), min(created_at) FROM input HAVING count(*) > 0
           )`;

async function writeEventsAndSpend(
  client: pg.PoolClient,
  batch: readonly LoggedBeacon[],
  statuses: readonly EventStatus[],
  priced: PricedEvents,
  target: ReportRowsTarget,
): Promise<void> {
  const { spend } = priced;
  const totals = spendTotals(batch, priced);
  const outbox = target === "outbox";
  // Data-modifying CTEs always run to completion, referenced or not: one round trip for all writes.
  // A kept zone Postgres no longer knows fails it: withKnownZones has the zone left out from then on.
  await withKnownZones(() =>
    client.query(
      prepared(
        outbox ? "beacons-write-outbox" : "beacons-write",
        sql`WITH ${raw(outbox ? `${OUTBOX_BATCH}, ` : "")}input AS (
             SELECT * FROM unnest(${batch.map((b) => b.eventId)}::uuid[], ${batch.map((b) => b.claims.kind)}::text[], ${statuses}::text[], ${batch.map((b) => b.sessionId)}::text[], ${batch.map((b) => b.userId)}::text[], ${batch.map((b) => b.claims.adId)}::text[], ${batch.map((b) => b.claims.campaignId)}::text[], ${batch.map((b) => b.claims.advertiserId)}::text[], ${batch.map((b) => b.claims.publisherId)}::text[],
                                  ${batch.map((b) => b.claims.requestId)}::text[], ${batch.map((b) => b.claims.adType)}::text[], ${batch.map((b) => b.claims.adSize)}::text[], ${batch.map((b) => b.claims.placementName)}::text[], ${batch.map((b) => b.claims.context)}::text[], ${batch.map((b) => b.claims.site)}::text[], ${spend.map(String)}::bigint[], ${batch.map((b) => b.userAgent)}::text[], ${batch.map((b) => b.createdAt)}::timestamptz[],
                                  ${batch.map((b) => b.clientHash)}::text[], ${batch.map((b) => b.claims.searchTerm)}::text[], ${batch.map((b) => b.claims.category)}::text[])
                    AS t(event_id, kind, status, session_id, user_id, ad_id, campaign_id, advertiser_id, publisher_id,
                         request_id, ad_type, ad_size, placement_name, context, site, spend_micros, user_agent, created_at, client_hash,
                         search_term, category)
           ), events AS (
             INSERT INTO ad_events (event_id, kind, status, session_id, user_id, ad_id, campaign_id, advertiser_id, publisher_id,
                                    request_id, ad_type, ad_size, placement_name, context, site, spend_micros, user_agent, created_at, client_hash,
                                    search_term, category, clickhouse_batch)
             SELECT event_id, kind::"EventKind", status::"EventStatus", session_id, user_id, ad_id, campaign_id, advertiser_id, publisher_id,
                    request_id, ad_type::"AdType", ad_size, placement_name, context, site, spend_micros, user_agent, created_at, client_hash,
                    search_term, category, ${raw(outbox ? "(SELECT id FROM outbox_id)" : "NULL::bigint")}
               FROM input
           ), ${raw(outbox ? OUTBOX_ROW : TRAFFIC_UPSERTS)}, wallets AS (
             UPDATE accounts a SET wallet_balance_micros = a.wallet_balance_micros - d.amount, updated_at = now()
               FROM unnest(${totals.advertisers[0]}::text[], ${totals.advertisers[1]}::bigint[]) AS d(id, amount) WHERE a.id = d.id
           ), campaign_spend AS (
             INSERT INTO campaign_daily_spend (campaign_id, day, spend_micros)
             SELECT * FROM unnest(${totals.campaignDays[0]}::text[], ${totals.campaignDays[1]}::date[], ${totals.campaignDays[2]}::bigint[])
             ON CONFLICT (campaign_id, day) DO UPDATE SET spend_micros = campaign_daily_spend.spend_micros + EXCLUDED.spend_micros
           ), advertiser_spend AS (
             INSERT INTO advertiser_daily_spend (advertiser_id, day, spend_micros)
             SELECT * FROM unnest(${totals.advertiserDays[0]}::text[], ${totals.advertiserDays[1]}::date[], ${totals.advertiserDays[2]}::bigint[])
             ON CONFLICT (advertiser_id, day) DO UPDATE SET spend_micros = advertiser_daily_spend.spend_micros + EXCLUDED.spend_micros
           )
           SELECT 1`,
      ),
    ),
  );
}

/**
 * A writer of a stretch of one shard's log with the statuses settling decided, on `client`, inside
 * the caller's transaction (which also moves the shard's cursor): spend, ad_events and the
 * report rows `target` says.
 */
export const beaconWriter =
  (target: ReportRowsTarget) =>
  async (client: pg.PoolClient, batch: readonly LoggedBeacon[], statuses: readonly EventStatus[], priced: PricedEvents): Promise<SettledBeacon[]> => {
    await writeEventsAndSpend(client, batch, statuses, priced, target);
    return batch.map((b, i) => ({ eventId: b.eventId, status: statuses[i]!, spendMicros: priced.spend[i]! }));
  };

/** Postgres as the store: the events and their report rows, in Postgres. */
export const storeBeacons = beaconWriter("rollups");
