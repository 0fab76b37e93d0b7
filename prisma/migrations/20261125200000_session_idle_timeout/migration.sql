-- Dashboard sessions end after 12 hours without a request as well as 30 days after sign-in.
-- Each session records its last request (written at most once a minute), and the sweep that
-- deletes expired and idle sessions reads both columns through an index each. Sessions open
-- now count as seen now.
-- (Prisma splits this file at semicolons and quotes even inside comments: comments here use neither.)

-- AlterTable
ALTER TABLE "user_sessions" ADD COLUMN     "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- CreateIndex
CREATE INDEX "user_sessions_expires_at_idx" ON "user_sessions"("expires_at");

-- CreateIndex
CREATE INDEX "user_sessions_last_seen_at_idx" ON "user_sessions"("last_seen_at");
