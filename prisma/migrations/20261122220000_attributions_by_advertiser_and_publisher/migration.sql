-- The reports count distinct credited orders per row from attributions, for one advertiser's or
-- one publisher's range: without these, each report read the whole table.
CREATE INDEX "attributions_advertiser_id_placed_at_idx" ON "attributions"("advertiser_id", "placed_at");

CREATE INDEX "attributions_publisher_id_placed_at_idx" ON "attributions"("publisher_id", "placed_at");
