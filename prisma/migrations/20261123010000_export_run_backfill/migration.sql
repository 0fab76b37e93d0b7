-- A backfill run (npm run export -- --from --to) delivers a range by hand: it is logged like any
-- run but never moves the destination's watermark, and the scheduler does not retry it.
ALTER TABLE "export_runs" ADD COLUMN "backfill" BOOLEAN NOT NULL DEFAULT false;
