-- Only proven orders are credited by default (docs/decisions/0050-proven-orders-credit-by-default.md).
-- The setting becomes an opt-in, "credit orders without proof", off for every publisher, those that
-- did not require verification included: the old column's value is not carried over. Orders already
-- settled keep the credit stored on them (conversions.credited, attributions.credited).

-- AlterTable
ALTER TABLE "accounts" DROP COLUMN "require_verified_conversions",
ADD COLUMN     "credit_unverified_conversions" BOOLEAN NOT NULL DEFAULT false;
