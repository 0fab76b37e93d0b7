-- The /v1 rate limits, shared by every process: what the processes have taken between them of
-- each key window (src/server/limits/). UNLOGGED, as prisma/hand-written.sql says: counts that
-- matter for seconds are not worth the WAL, and a crash that empties the table only starts the
-- windows over.

-- CreateTable
CREATE UNLOGGED TABLE "v1_limit_windows" (
    "window_start_ms" BIGINT NOT NULL,
    "key" TEXT NOT NULL,
    "capacity" INTEGER NOT NULL,
    "taken" INTEGER NOT NULL,
    "last_grant" INTEGER NOT NULL,

    CONSTRAINT "v1_limit_windows_pkey" PRIMARY KEY ("window_start_ms","key")
);
