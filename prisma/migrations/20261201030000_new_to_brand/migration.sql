-- New-to-brand: each credited line of a campaign's own SKU says whether its shopper had bought any
-- of the advertiser's SKUs at the publisher in the look-back before (brand_purchases, kept as
-- orders are attributed). Lines credited before this migration read as not new-to-brand.

-- AlterTable
ALTER TABLE "attributions" ADD COLUMN     "new_to_brand" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "daily_rollups" ADD COLUMN     "ntb_conversions" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "ntb_sales_revenue_micros" DECIMAL(38,0) NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "daily_campaign_totals" ADD COLUMN     "ntb_conversions" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "ntb_sales_revenue_micros" DECIMAL(38,0) NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "daily_ad_totals" ADD COLUMN     "ntb_conversions" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "ntb_sales_revenue_micros" DECIMAL(38,0) NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "daily_publisher_orders" ADD COLUMN     "ntb_conversions" BIGINT NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "brand_purchases" (
    "publisher_id" TEXT NOT NULL,
    "advertiser_id" TEXT NOT NULL,
    "shopper" TEXT NOT NULL,
    "first_purchased_at" TIMESTAMPTZ(3) NOT NULL,
    "last_purchased_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "brand_purchases_pkey" PRIMARY KEY ("publisher_id","shopper","advertiser_id")
);

-- CreateIndex
CREATE INDEX "brand_purchases_last_purchased_at_idx" ON "brand_purchases"("last_purchased_at");


-- The purchases of the credited orders still kept, so orders attributed from now on look back
-- over them: per shopper key (user id, hashed e-mail) and brand (the SKU's by the publisher's
-- catalogue, else the advertisers whose products have that SKU).
INSERT INTO "brand_purchases" ("publisher_id", "advertiser_id", "shopper", "first_purchased_at", "last_purchased_at")
SELECT c.publisher_id, o.advertiser_id, k.shopper, min(c.placed_at), max(c.placed_at)
  FROM conversions c
 CROSS JOIN LATERAL (VALUES ('user:' || c.user_id), ('email:' || c.email_hashed)) AS k(shopper)
 CROSS JOIN LATERAL jsonb_to_recordset(c.items) AS i(sku text)
 CROSS JOIN LATERAL (
   SELECT pc.advertiser_id FROM publisher_catalogue pc WHERE pc.publisher_id = c.publisher_id AND pc.sku = i.sku
   UNION ALL
   SELECT p.advertiser_id FROM products p
    WHERE p.sku = i.sku AND NOT EXISTS (SELECT 1 FROM publisher_catalogue pc WHERE pc.publisher_id = c.publisher_id AND pc.sku = i.sku)
 ) AS o
 WHERE c.credited AND c.attribution_failed_reason IS NULL
 GROUP BY 1, 2, 3
ON CONFLICT DO NOTHING;
