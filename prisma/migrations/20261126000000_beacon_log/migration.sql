-- Accept, then settle (docs/ingest.md, section Accept then settle). A beacon route now only appends the
-- verified event to beacon_log and answers 202 once that insert commits. Settle workers
-- (src/server/settle/) read the log shard by shard in commit-safe order, decide each event as the
-- beacon route used to (counted, duplicate, bot, invalid traffic, spend) and write ad_events and
-- the rollups in the transaction that moves the cursor of the shard.

-- The log is append-only and partitioned by the day of receipt. The upkeep job creates the partition of each day
-- ahead of time and drops settled ones after a grace period. The default partition only
-- catches rows when no day partition exists yet, so an accept never fails for want of one.
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
    "client_hash" TEXT
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

INSERT INTO "settle_cursors" ("shard") SELECT generate_series(0, 15);

-- An accepted beacon or order whose own data cannot be settled is set aside here with the reason
-- (kind beacon or conversion, the shard of a beacon), and settling goes on past it.
CREATE TABLE "settle_set_aside" (
    "event_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "shard" SMALLINT,
    "received_at" TIMESTAMPTZ(3) NOT NULL,
    "reason" TEXT NOT NULL,
    "sqlstate" TEXT,
    "set_aside_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "settle_set_aside_pkey" PRIMARY KEY ("event_id")
);

-- The velocity rule now reads the log (every accepted click, settled or not), so ad_events no
-- longer needs its index of clicks by address.
DROP INDEX "ad_events_click_client_hash_created_at_idx";
