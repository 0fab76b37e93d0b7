-- Verified conversions and plausibility limits (docs/conversions.md, sections Verified orders and
-- Plausibility limits). A publisher may require orders proven by its API key or by a token its
-- server signed with a secret Tally made. Unverified orders are kept and counted apart, and never
-- credited for a publisher that requires proof. Orders past the publisher limits are set aside at settle.

-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "max_line_quantity" DOUBLE PRECISION,
ADD COLUMN     "max_order_total_micros" BIGINT,
ADD COLUMN     "require_verified_conversions" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "conversions" ADD COLUMN     "credited" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "verified_by" TEXT;

-- AlterTable
ALTER TABLE "order_receipts" ADD COLUMN     "verified" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "attributions" ADD COLUMN     "credited" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "verified" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "daily_rollups" ADD COLUMN     "uncredited_conversions" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "uncredited_sales_revenue_micros" DECIMAL(38,0) NOT NULL DEFAULT 0,
ADD COLUMN     "unverified_conversions" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "unverified_sales_revenue_micros" DECIMAL(38,0) NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "daily_campaign_totals" ADD COLUMN     "uncredited_conversions" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "uncredited_sales_revenue_micros" DECIMAL(38,0) NOT NULL DEFAULT 0,
ADD COLUMN     "unverified_conversions" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "unverified_sales_revenue_micros" DECIMAL(38,0) NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "daily_ad_totals" ADD COLUMN     "uncredited_conversions" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "uncredited_sales_revenue_micros" DECIMAL(38,0) NOT NULL DEFAULT 0,
ADD COLUMN     "unverified_conversions" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "unverified_sales_revenue_micros" DECIMAL(38,0) NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "daily_publisher_orders" ADD COLUMN     "uncredited_conversions" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "unverified_conversions" BIGINT NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "conversion_signing_secrets" (
    "id" TEXT NOT NULL,
    "publisher_id" TEXT NOT NULL,
    "secret_ciphertext" BYTEA NOT NULL,
    "prefix" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retires_at" TIMESTAMPTZ(3),

    CONSTRAINT "conversion_signing_secrets_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "conversion_signing_secrets_publisher_id_idx" ON "conversion_signing_secrets"("publisher_id");

-- AddForeignKey
ALTER TABLE "conversion_signing_secrets" ADD CONSTRAINT "conversion_signing_secrets_publisher_id_fkey" FOREIGN KEY ("publisher_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Only the two proofs Tally knows.
ALTER TABLE "conversions" ADD CONSTRAINT "conversions_verified_by_check" CHECK ("verified_by" IN ('api_key', 'order_token'));

-- Every order stored before this migration came without proof and was credited: the report rows
-- already count them as conversions, and now count them as unverified too, as a recount of their
-- attributions (verified false, credited true) does.
UPDATE "daily_rollups" SET "unverified_conversions" = "conversions", "unverified_sales_revenue_micros" = "sales_revenue_micros" WHERE "conversions" <> 0 OR "sales_revenue_micros" <> 0;
UPDATE "daily_campaign_totals" SET "unverified_conversions" = "conversions", "unverified_sales_revenue_micros" = "sales_revenue_micros" WHERE "conversions" <> 0 OR "sales_revenue_micros" <> 0;
UPDATE "daily_ad_totals" SET "unverified_conversions" = "conversions", "unverified_sales_revenue_micros" = "sales_revenue_micros" WHERE "conversions" <> 0 OR "sales_revenue_micros" <> 0;
UPDATE "daily_publisher_orders" SET "unverified_conversions" = "conversions" WHERE "conversions" <> 0;
