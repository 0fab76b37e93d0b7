-- Sales revenue summed per report row and day grows with the number of orders, which nothing
-- bounds: a bigint of micro-units would overflow after about 9.2 trillion currency units, and the
-- attribution batch that crossed it would fail. Each order line and each order is bounded by the
-- conversion schema, and the sums of a day are kept as numeric.
-- (Prisma splits this file at semicolons and quotes even inside comments: comments here use neither.)

-- AlterTable
ALTER TABLE "daily_ad_totals" ALTER COLUMN "sales_revenue_micros" SET DATA TYPE DECIMAL(38,0);

-- AlterTable
ALTER TABLE "daily_campaign_totals" ALTER COLUMN "sales_revenue_micros" SET DATA TYPE DECIMAL(38,0);

-- AlterTable
ALTER TABLE "daily_rollups" ALTER COLUMN "sales_revenue_micros" SET DATA TYPE DECIMAL(38,0);
