-- Every ad served keeps the ad query's search term and page category, normalised
-- (src/server/core/search-terms.ts: folded, at most 80 code points, a term holding private data
-- replaced whole by a marker such as "(email)"), carried by its beacon token to each impression,
-- view and click (beacon_log, then ad_events) and on to the order lines those events win
-- (attributions). Null where the query had none, and in every row written before this migration.
-- Adding a nullable column without a default rewrites nothing, on the partitioned parents and
-- their partitions alike (docs/decisions/0052-search-terms-kept-with-each-ad.md).
ALTER TABLE "beacon_log" ADD COLUMN "search_term" TEXT,
ADD COLUMN "category" TEXT;

ALTER TABLE "ad_events" ADD COLUMN "search_term" TEXT,
ADD COLUMN "category" TEXT;

ALTER TABLE "attributions" ADD COLUMN "search_term" TEXT,
ADD COLUMN "category" TEXT;
