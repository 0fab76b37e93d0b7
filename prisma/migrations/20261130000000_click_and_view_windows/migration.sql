-- Attribution windows as retail media buyers read them (docs/conversions.md, "Windows"): a click
-- window and a view window per campaign type, which touches may earn view-through credit, an
-- optional override per campaign, and a log of who changed them. A type's one window becomes both
-- of its windows, so every order is credited as before until someone changes one.

-- CreateEnum
CREATE TYPE "ViewThroughTouches" AS ENUM ('views_and_impressions', 'views_only');

-- AlterTable
ALTER TABLE "campaigns" ADD COLUMN     "click_window_seconds" INTEGER,
ADD COLUMN     "view_window_seconds" INTEGER;

-- AlterTable
ALTER TABLE "attribution_windows"
ADD COLUMN     "click_window_seconds" INTEGER NOT NULL DEFAULT 1209600,
ADD COLUMN     "view_through" "ViewThroughTouches" NOT NULL DEFAULT 'views_and_impressions',
ADD COLUMN     "view_window_seconds" INTEGER NOT NULL DEFAULT 1209600;
-- Within a day and 90 days, as the CHECK below requires (the dashboard and the CLI never allowed more or less).
UPDATE "attribution_windows" SET "click_window_seconds" = least(greatest("window_seconds", 86400), 7776000),
                                 "view_window_seconds" = least(greatest("window_seconds", 86400), 7776000);
ALTER TABLE "attribution_windows" DROP COLUMN "window_seconds";

-- CreateTable
CREATE TABLE "activity_log" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT clock_timestamp(),
    "actor_user_id" TEXT,
    "actor_name" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "account_id" TEXT,
    "before" JSONB,
    "after" JSONB,

    CONSTRAINT "activity_log_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "activity_log_account_id_id_idx" ON "activity_log"("account_id", "id");

-- A window is a day to 90 days, wherever it is set (prisma/hand-written.sql).
ALTER TABLE "attribution_windows" ADD CONSTRAINT "attribution_windows_days" CHECK (
  "click_window_seconds" BETWEEN 86400 AND 7776000 AND "view_window_seconds" BETWEEN 86400 AND 7776000);
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_window_days" CHECK (
  ("click_window_seconds" IS NULL OR "click_window_seconds" BETWEEN 86400 AND 7776000) AND
  ("view_window_seconds" IS NULL OR "view_window_seconds" BETWEEN 86400 AND 7776000));
