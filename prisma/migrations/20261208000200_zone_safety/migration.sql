-- Kept zones made safe for the writers (docs/decisions/0051-days-in-each-accounts-time-zone.md).
--
-- Backfill without holding the writers: a step first marks the stretch of a zone it recounts
-- (backfill_since up to since, or backfill_hours_since up to hours_since), in a moment. From then
-- on the writers add what they store of that stretch to rows keyed backfill:ZONE, which no
-- report reads, while the step recounts what was stored before, in a snapshot of that moment,
-- outside any lock. The step then adds both to the zone's rows and moves the start in one short
-- transaction.
ALTER TABLE "report_zones" ADD COLUMN "backfill_since" TIMESTAMPTZ(3);
ALTER TABLE "report_zones" ADD COLUMN "backfill_hours_since" TIMESTAMPTZ(3);

-- A kept zone that the tz database of Postgres does not know (dropped or renamed by a later
-- release): the writers leave it out, so the rows of UTC and every other zone go on, and reports
-- in it are refused.
CREATE TABLE "unknown_report_zones" (
    "zone" TEXT NOT NULL,
    "found_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "unknown_report_zones_pkey" PRIMARY KEY ("zone")
);
