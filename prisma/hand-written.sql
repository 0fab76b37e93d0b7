-- Schema that prisma/schema.prisma cannot express (partial indexes, CHECK constraints), in the
-- state the migrations leave it. The migration that introduces each statement carries it too;
-- src/server/db/schema.int.test.ts applies this file after Prisma's own script, so the migrated
-- database must equal schema.prisma plus exactly this.

-- Accept, then settle (20261126000000_beacon_log): the partitioned log of accepted beacons, the
-- cursors of the settle shards and the events set aside. Prisma cannot declare a partitioned
-- table, and only hand-written SQL reads these. A beacon's normalised search term and category
-- came with 20261211000100_search_terms_with_events.
CREATE SEQUENCE "beacon_log_seq" AS bigint;

CREATE TABLE "beacon_log" (
    "seq" BIGINT NOT NULL DEFAULT nextval('beacon_log_seq'),
    "accepted_xid" XID8 NOT NULL DEFAULT pg_current_xact_id(),
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "shard" SMALLINT NOT NULL,
    "event_id" UUID NOT NULL,
    "event_at" TIMESTAMPTZ(3) NOT NULL,
    "kind" "EventKind" NOT NULL,
    "session_id" TEXT NOT NULL,
    "user_id" TEXT,
    "ad_id" TEXT NOT NULL,
    "campaign_id" TEXT NOT NULL,
    "advertiser_id" TEXT NOT NULL,
    "publisher_id" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "ad_type" "AdType" NOT NULL,
    "ad_size" TEXT,
    "placement_name" TEXT NOT NULL,
    "context" TEXT NOT NULL,
    "site" TEXT NOT NULL,
    "user_agent" TEXT,
    "is_bot" BOOLEAN NOT NULL,
    "session_matches" BOOLEAN NOT NULL,
    "client_hash" TEXT,
    "search_term" TEXT,
    "category" TEXT
) PARTITION BY RANGE ("received_at");

CREATE TABLE "beacon_log_default" PARTITION OF "beacon_log" DEFAULT;

-- A settle worker reads one shard in order of commit: the transaction id, then the sequence
-- inside it.
CREATE INDEX "beacon_log_shard_accepted_xid_seq_idx" ON "beacon_log" ("shard", "accepted_xid", "seq");

-- The click-velocity rule counts the clicks of one address accepted in the minute before a click. Only
-- clicks pay for this entry.
CREATE INDEX "beacon_log_click_client_hash_event_at_idx" ON "beacon_log" ("client_hash", "event_at") WHERE "kind" = 'click';

-- How far each shard is settled: the last (accepted_xid, seq) settled. A worker takes a
-- shard by locking its row, so two workers never settle one shard at once, and a worker that dies
-- releases the lock with its connection.
CREATE TABLE "settle_cursors" (
    "shard" SMALLINT NOT NULL,
    "last_xid" XID8 NOT NULL DEFAULT '0',
    "last_seq" BIGINT NOT NULL DEFAULT 0,
    "settled_events" BIGINT NOT NULL DEFAULT 0,
    "settled_by" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "settle_cursors_pkey" PRIMARY KEY ("shard")
);

-- An accepted beacon or order that cannot be settled is set aside here with the reason (kind
-- beacon or conversion, the shard of a beacon), and settling goes on past it; so is an order a
-- rule sets aside (`rule`: orders per session, ...), with its publisher and order id
-- (20261127100000_bounded_pipeline). Kept TALLY_SET_ASIDE_RETENTION_DAYS.
CREATE TABLE "settle_set_aside" (
    "event_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "shard" SMALLINT,
    "received_at" TIMESTAMPTZ(3) NOT NULL,
    "reason" TEXT NOT NULL,
    "sqlstate" TEXT,
    "set_aside_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "publisher_id" TEXT,
    "order_id" TEXT,
    "rule" TEXT,

    CONSTRAINT "settle_set_aside_pkey" PRIMARY KEY ("event_id")
);
CREATE INDEX "settle_set_aside_set_aside_at_idx" ON "settle_set_aside" ("set_aside_at");
CREATE INDEX "settle_set_aside_publisher_id_received_at_idx" ON "settle_set_aside" ("publisher_id", "received_at");


-- A member sees one account, so a member without one must not exist: a missing account must never
-- read as every account (20261125200100_members_need_an_account).
ALTER TABLE "users" ADD CONSTRAINT "users_member_has_account_check" CHECK ("role" <> 'member' OR "account_id" IS NOT NULL);

-- A member is an admin or a viewer of their account, staff neither (20261203000000_member_roles_and_invitations).
ALTER TABLE "users" ADD CONSTRAINT "users_member_role_check" CHECK (("role" = 'member') = ("member_role" IS NOT NULL));

-- The log of accepted orders and its one cursor (20261126000100_conversion_log).
CREATE SEQUENCE "conversion_log_seq" AS bigint;

CREATE TABLE "conversion_log" (
    "seq" BIGINT NOT NULL DEFAULT nextval('conversion_log_seq'),
    "accepted_xid" XID8 NOT NULL DEFAULT pg_current_xact_id(),
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "event_id" UUID NOT NULL,
    "pinned_received_at" TIMESTAMPTZ(3),
    "conversion" JSONB NOT NULL,
    -- the order's size as stored (its JSON), so a settle stretch is bounded in bytes (20261127100000_bounded_pipeline)
    "bytes" INTEGER NOT NULL DEFAULT 0
) PARTITION BY RANGE ("received_at");

CREATE TABLE "conversion_log_default" PARTITION OF "conversion_log" DEFAULT;

CREATE INDEX "conversion_log_accepted_xid_seq_idx" ON "conversion_log" ("accepted_xid", "seq");

-- Orders are few beside beacons, and need no shards: one cursor, taken by one worker at a time.
CREATE TABLE "conversion_cursor" (
    "id" SMALLINT NOT NULL DEFAULT 0,
    "last_xid" XID8 NOT NULL DEFAULT '0',
    "last_seq" BIGINT NOT NULL DEFAULT 0,
    "settled_orders" BIGINT NOT NULL DEFAULT 0,
    "settled_by" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "conversion_cursor_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "conversion_cursor_one_row_check" CHECK ("id" = 0)
);

-- Day partitions of ad_events, conversions and attributions (20261127000000_raw_day_partitions):
-- the data model describes their columns and keys, the migration makes them partitioned (the schema
-- test compares the tables, not their partitions). Where retention has dropped raw rows up to:
CREATE TABLE "raw_retention" (
    "table_name" TEXT NOT NULL,
    "kept_from" DATE NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "raw_retention_pkey" PRIMARY KEY ("table_name")
);

-- Look-ups of counted events only (20261127100000_bounded_pipeline): what a client sends that is
-- not counted (duplicates, bots, other invalid traffic) never makes them longer. Settle's
-- de-duplication window of (session, ad, kind), and how often one token was counted:
CREATE INDEX "ad_events_counted_window_idx" ON "ad_events" ("session_id", "ad_id", "kind", "created_at") WHERE "status" = 'counted';
CREATE INDEX "ad_events_counted_token_idx" ON "ad_events" ("request_id", "ad_id", "kind") WHERE "status" = 'counted';
-- Attribution's touches: a user's, or an anonymous session's.
CREATE INDEX "ad_events_counted_user_idx" ON "ad_events" ("user_id", "created_at") WHERE "status" = 'counted' AND "user_id" IS NOT NULL;
CREATE INDEX "ad_events_counted_session_idx" ON "ad_events" ("session_id", "created_at") WHERE "status" = 'counted' AND "user_id" IS NULL;
-- Orders attribution set aside go after TALLY_SET_ASIDE_RETENTION_DAYS.
CREATE INDEX "conversions_set_aside_received_at_idx" ON "conversions" ("received_at") WHERE "attribution_failed_reason" IS NOT NULL;

-- The shared /v1 rate limits (20261128200000_v1_limit_windows): counts that matter for seconds,
-- not worth the WAL; a crash that empties them starts the windows over.
ALTER TABLE "v1_limit_windows" SET UNLOGGED;

-- The proof of a verified order (20261128400000_trusted_conversions): only the two Tally knows.
ALTER TABLE "conversions" ADD CONSTRAINT "conversions_verified_by_check" CHECK ("verified_by" IN ('api_key', 'order_token'));

-- ClickHouse's outbox (20261129100000_clickhouse_outbox): the shipper reads the batches not yet
-- shipped, and a batch's rows; rows settled without ClickHouse (null) are in neither index.
CREATE INDEX "clickhouse_batches_waiting_idx" ON "clickhouse_batches" ("id") WHERE "shipped_at" IS NULL;
CREATE INDEX "ad_events_clickhouse_batch_idx" ON "ad_events" ("clickhouse_batch") WHERE "clickhouse_batch" IS NOT NULL;
CREATE INDEX "attributions_clickhouse_batch_idx" ON "attributions" ("clickhouse_batch") WHERE "clickhouse_batch" IS NOT NULL;

-- Click and view windows (20261130000000_click_and_view_windows): a window is a day to 90 days,
-- set for a campaign type or overridden for one campaign.
ALTER TABLE "attribution_windows" ADD CONSTRAINT "attribution_windows_days" CHECK (
  "click_window_seconds" BETWEEN 86400 AND 7776000 AND "view_window_seconds" BETWEEN 86400 AND 7776000);
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_window_days" CHECK (
  ("click_window_seconds" IS NULL OR "click_window_seconds" BETWEEN 86400 AND 7776000) AND
  ("view_window_seconds" IS NULL OR "view_window_seconds" BETWEEN 86400 AND 7776000));

-- Wallet top-ups (20261206000500_wallet_top_ups): append-only. The account a top-up belongs to is
-- kept (no Prisma relation, so that the ledger never cascades away with it), and rules turn an
-- update or a delete of a row into nothing.
ALTER TABLE "wallet_top_ups" ADD CONSTRAINT "wallet_top_ups_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

CREATE RULE "wallet_top_ups_no_update" AS ON UPDATE TO "wallet_top_ups" DO INSTEAD NOTHING;

CREATE RULE "wallet_top_ups_no_delete" AS ON DELETE TO "wallet_top_ups" DO INSTEAD NOTHING;

-- Days in time zones (20261207000000_time_zones): a local hour is 0 to 23.
ALTER TABLE "hourly_campaign_totals" ADD CONSTRAINT "hourly_campaign_totals_hour_check" CHECK ("hour" BETWEEN 0 AND 23);
ALTER TABLE "hourly_publisher_orders" ADD CONSTRAINT "hourly_publisher_orders_hour_check" CHECK ("hour" BETWEEN 0 AND 23);
ALTER TABLE "hourly_advertiser_totals" ADD CONSTRAINT "hourly_advertiser_totals_hour_check" CHECK ("hour" BETWEEN 0 AND 23);

-- The hours report of an advertiser (20261209000100_hours_covering_index, then
-- 20261210000100_hours_over_publishers): an index-only scan of the advertiser's hourly rows over
-- every publisher (publisher_id '') or one publisher's, every figure in the index (Prisma cannot
-- declare INCLUDE).
CREATE INDEX "hourly_advertiser_totals_advertiser_id_zone_day_idx" ON "hourly_advertiser_totals"("advertiser_id", "zone", "publisher_id", "day") INCLUDE ("hour", "impressions", "views", "clicks", "spend_micros", "duplicate_events", "bot_events", "session_mismatch_events", "token_reuse_events", "no_user_agent_events", "click_velocity_events", "attributed_items", "conversions", "sales_revenue_micros", "unverified_conversions", "unverified_sales_revenue_micros", "uncredited_conversions", "uncredited_sales_revenue_micros", "conversions_click", "sales_revenue_click_micros", "units_sold_micros", "converted_clicks", "halo_conversions", "halo_sales_revenue_micros", "ntb_conversions", "ntb_sales_revenue_micros");
