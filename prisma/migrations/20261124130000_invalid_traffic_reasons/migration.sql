-- Invalid traffic by reason: four more beacon statuses, counted per reason in every rollup table
-- (the never-written other_invalid_events of daily_rollups gives way to them). A keyed hash of the
-- client address on events, indexed for clicks only (the velocity rule). Orders that attribution
-- set aside, with the reason. The counters of the sign-in rate limits.
-- (Prisma splits this file at semicolons and quotes even inside comments: comments here use neither.)

ALTER TYPE "EventStatus" ADD VALUE 'session_mismatch';
ALTER TYPE "EventStatus" ADD VALUE 'token_reuse';
ALTER TYPE "EventStatus" ADD VALUE 'no_user_agent';
ALTER TYPE "EventStatus" ADD VALUE 'click_velocity';

-- AlterTable
ALTER TABLE "ad_events" ADD COLUMN     "client_hash" TEXT;

-- AlterTable
ALTER TABLE "conversions" ADD COLUMN     "attribution_failed_reason" TEXT;

-- AlterTable
ALTER TABLE "daily_rollups" DROP COLUMN "other_invalid_events",
ADD COLUMN     "click_velocity_events" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "no_user_agent_events" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "session_mismatch_events" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "token_reuse_events" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "daily_campaign_totals" ADD COLUMN     "click_velocity_events" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "no_user_agent_events" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "session_mismatch_events" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "token_reuse_events" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "daily_ad_totals" ADD COLUMN     "click_velocity_events" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "no_user_agent_events" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "session_mismatch_events" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "token_reuse_events" BIGINT NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "rate_limits" (
    "key" VARCHAR(255) NOT NULL,
    "points" INTEGER NOT NULL DEFAULT 0,
    "expire" BIGINT,

    CONSTRAINT "rate_limits_pkey" PRIMARY KEY ("key")
);


-- CreateIndex (hand-written: partial, see prisma/hand-written.sql)
CREATE INDEX "ad_events_click_client_hash_created_at_idx" ON "ad_events" ("client_hash", "created_at") WHERE "kind" = 'click';
