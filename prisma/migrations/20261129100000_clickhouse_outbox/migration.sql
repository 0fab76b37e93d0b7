-- The outbox of settled rows bound for ClickHouse (docs/decisions/0042-clickhouse-behind-the-store-seam.md).
-- With CLICKHOUSE_URL set, settling and attribution stamp their rows with a batch id written here
-- in the same transaction, and the shipper sends each batch once and marks it shipped. Unused (and
-- empty) without ClickHouse.

ALTER TABLE "ad_events" ADD COLUMN "clickhouse_batch" BIGINT;
ALTER TABLE "attributions" ADD COLUMN "clickhouse_batch" BIGINT;

CREATE TABLE "clickhouse_batches" (
    "id" BIGSERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "rows" INTEGER NOT NULL,
    "first_at" TIMESTAMPTZ(3) NOT NULL,
    "last_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leased_until" TIMESTAMPTZ(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "shipped_at" TIMESTAMPTZ(3),
    "set_aside" INTEGER NOT NULL DEFAULT 0,
    "last_error" TEXT,

    CONSTRAINT "clickhouse_batches_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "clickhouse_set_aside" (
    "batch_id" BIGINT NOT NULL,
    "row_key" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "clickhouse_set_aside_pkey" PRIMARY KEY ("batch_id","row_key")
);

-- Hand-written (prisma/hand-written.sql): the shipper reads the batches not yet shipped, and the
-- rows of a batch. Rows settled without ClickHouse (null) are in neither index.
CREATE INDEX "clickhouse_batches_waiting_idx" ON "clickhouse_batches" ("id") WHERE "shipped_at" IS NULL;
CREATE INDEX "ad_events_clickhouse_batch_idx" ON "ad_events" ("clickhouse_batch") WHERE "clickhouse_batch" IS NOT NULL;
CREATE INDEX "attributions_clickhouse_batch_idx" ON "attributions" ("clickhouse_batch") WHERE "clickhouse_batch" IS NOT NULL;
