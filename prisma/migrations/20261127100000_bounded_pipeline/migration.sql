-- Every pipeline step bounded, and look-ups whose cost does not grow with what a client sent
-- before (docs/operations.md, "Caps and limits").

-- Settle reads a stretch of accepted orders bounded in bytes without reading the orders it leaves:
-- each order's size as stored (its JSON) is kept beside it when it is accepted.
ALTER TABLE "conversion_log" ADD COLUMN "bytes" INTEGER NOT NULL DEFAULT 0;

-- Attribution batches are bounded in order lines as well as orders.
ALTER TABLE "conversions" ADD COLUMN "line_count" INTEGER NOT NULL DEFAULT 0;
UPDATE "conversions" SET "line_count" = jsonb_array_length("items") WHERE jsonb_typeof("items") = 'array';

-- Orders per session and day, counted when orders are settled.
CREATE INDEX "conversions_publisher_id_session_id_received_at_idx" ON "conversions"("publisher_id", "session_id", "received_at");

-- Orders set aside by attribution are kept TALLY_SET_ASIDE_RETENTION_DAYS, not the raw retention.
CREATE INDEX "conversions_set_aside_received_at_idx" ON "conversions" ("received_at") WHERE "attribution_failed_reason" IS NOT NULL;

-- Set-aside beacons and orders: which publisher's (and which order), the rule that set an order
-- aside (null when it failed), and an index for their retention.
ALTER TABLE "settle_set_aside" ADD COLUMN "publisher_id" TEXT, ADD COLUMN "order_id" TEXT, ADD COLUMN "rule" TEXT;
CREATE INDEX "settle_set_aside_set_aside_at_idx" ON "settle_set_aside" ("set_aside_at");
CREATE INDEX "settle_set_aside_publisher_id_received_at_idx" ON "settle_set_aside" ("publisher_id", "received_at");

-- ad_events: the look-ups of settle and attribution read counted events only, through partial
-- indexes that match their whole condition. The indexes of every row by session and by user went:
-- duplicates, bots and other invalid traffic, which a client can send without end, made each
-- look-up of a session longer (a replayed token: 13,000 rows filtered out for one beacon).
DROP INDEX "ad_events_session_id_created_at_idx";
DROP INDEX "ad_events_user_id_created_at_idx";
-- the de-duplication window of (session, ad, kind)
CREATE INDEX "ad_events_counted_window_idx" ON "ad_events" ("session_id", "ad_id", "kind", "created_at") WHERE "status" = 'counted';
-- how often one token (request, ad, kind) was counted
CREATE INDEX "ad_events_counted_token_idx" ON "ad_events" ("request_id", "ad_id", "kind") WHERE "status" = 'counted';
-- attribution's touches: a user's, or an anonymous session's
CREATE INDEX "ad_events_counted_user_idx" ON "ad_events" ("user_id", "created_at") WHERE "status" = 'counted' AND "user_id" IS NOT NULL;
CREATE INDEX "ad_events_counted_session_idx" ON "ad_events" ("session_id", "created_at") WHERE "status" = 'counted' AND "user_id" IS NULL;

-- What each publisher's traffic made Tally store per day.
CREATE TABLE "publisher_daily_intake" (
    "day" DATE NOT NULL,
    "publisher_id" TEXT NOT NULL,
    "shard" SMALLINT NOT NULL,
    "beacons" BIGINT NOT NULL DEFAULT 0,
    "orders" BIGINT NOT NULL DEFAULT 0,
    "set_aside" BIGINT NOT NULL DEFAULT 0,
    "bytes" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "publisher_daily_intake_pkey" PRIMARY KEY ("day","publisher_id","shard")
);
