-- The daily aggregates of a destination cover local days of the zone of its account (docs/export.md).
-- A scheduled aggregate run keeps the zone its day was planned in, so a retry after the zone of the
-- account changed delivers the same day, and the watermark keeps the zone of the day it ends, so the
-- next day is the date after the last one delivered, in whatever zone the account has then.

-- The zone of the day of an aggregate run (its range is the span of that local day), null for events.
ALTER TABLE "export_runs" ADD COLUMN "time_zone" TEXT;

-- The zone whose local midnight delivered_to is (aggregates), UTC for events.
ALTER TABLE "export_watermarks" ADD COLUMN "time_zone" TEXT NOT NULL DEFAULT 'UTC';
