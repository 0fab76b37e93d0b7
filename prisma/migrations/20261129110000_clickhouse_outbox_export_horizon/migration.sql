-- The earliest created_at among the rows of an outbox batch (receipt time for events, credit time
-- for attributions): the export reads ClickHouse by those times and waits for a batch still unshipped.

ALTER TABLE "clickhouse_batches" ADD COLUMN "rows_created_from" TIMESTAMPTZ(3);
