-- Halo credit: a line of an advertiser's SKU (by the publisher's catalogue) that no campaign had a
-- touch for is credited to the advertiser's latest touch as halo, counted apart from conversions and
-- sales. Every line credited before is the campaign's own SKU.

-- CreateEnum
CREATE TYPE "AttributionMatch" AS ENUM ('sku', 'halo');

-- AlterTable
ALTER TABLE "attributions" ADD COLUMN     "match" "AttributionMatch" NOT NULL DEFAULT 'sku';

-- AlterTable
ALTER TABLE "daily_rollups" ADD COLUMN     "halo_conversions" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "halo_sales_revenue_micros" DECIMAL(38,0) NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "daily_campaign_totals" ADD COLUMN     "halo_conversions" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "halo_sales_revenue_micros" DECIMAL(38,0) NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "daily_ad_totals" ADD COLUMN     "halo_conversions" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "halo_sales_revenue_micros" DECIMAL(38,0) NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "daily_publisher_orders" ADD COLUMN     "halo_conversions" BIGINT NOT NULL DEFAULT 0;

