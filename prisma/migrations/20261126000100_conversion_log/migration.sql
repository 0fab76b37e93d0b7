-- Accept, then settle, for orders too. The conversion route takes the order receipt (the 30 day
-- de-duplication key) and appends the validated order to conversion_log in one statement, and
-- answers 202 once it commits. The settle step reads the log in commit-safe order under the one
-- cursor and writes conversions, which is the attribution queue, in the transaction that moves
-- the cursor.

CREATE SEQUENCE "conversion_log_seq" AS bigint;

CREATE TABLE "conversion_log" (
    "seq" BIGINT NOT NULL DEFAULT nextval('conversion_log_seq'),
    "accepted_xid" XID8 NOT NULL DEFAULT pg_current_xact_id(),
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "event_id" UUID NOT NULL,
    "pinned_received_at" TIMESTAMPTZ(3),
    "conversion" JSONB NOT NULL
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

INSERT INTO "conversion_cursor" ("id") VALUES (0);
